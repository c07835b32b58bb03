/**
 * What upstream's policy-only CRDs state about defaults, status subresources and annotations
 * (fixtures/upstream-crds.yaml), and an object's spec as the API server stores it with those defaults.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";

export interface UpstreamCrdLine {
  release: string;
  commit: string;
  statusSubresource: string[];
  /** By kind: the annotations of each policy.networking.k8s.io CRD. */
  policyApiAnnotations: Record<string, Record<string, string>>;
  /** By kind: `spec.a.b` -> the default of that field. */
  defaults: Record<string, Record<string, unknown>>;
}

export const UPSTREAM_CRDS = parse(
  readFileSync(path.join(__dirname, "fixtures", "upstream-crds.yaml"), "utf8"),
) as Record<string, UpstreamCrdLine>;

/**
 * `spec` with each default of `kind` on `line` set where the field is absent and its parent object
 * exists, as the API server defaults a custom resource (Kubernetes docs, "Defaulting").
 */
export function withUpstreamDefaults(line: string, kind: string, spec: Record<string, unknown>) {
  const result = structuredClone(spec);
  for (const [dotted, value] of Object.entries(UPSTREAM_CRDS[line].defaults[kind] ?? {})) {
    const [, ...fields] = dotted.split(".");
    let parent: Record<string, unknown> | undefined = result;
    for (const field of fields.slice(0, -1)) {
      const next: unknown = parent?.[field];
      parent = typeof next === "object" && next !== null ? (next as Record<string, unknown>) : undefined;
    }
    const last = fields[fields.length - 1];
    if (parent !== undefined && !(last in parent)) parent[last] = value;
  }
  return result;
}
