/**
 * A CRD's schema is never made weaker by the takeover. For the Calico kinds whose `spec` this program
 * keeps open (crds.ts: every kind crd-schemas/ does not type), an existing CRD whose schema declares the
 * spec's fields (Calico's own manifests and the Tigera operator write full schemas) keeps that schema:
 * the step reads it and the CRD is applied with it, instead of one that accepts any field. Only a schema
 * of this program's Calico line or a newer one is kept: the running calico-node's image names the
 * release that wrote the CRDs, and an older release's schema would prune the fields later releases added
 * (an open spec prunes nothing).
 */
import { type Credentials, isKubeRequestError, kubeRequest, requireApiServer } from "../../kubernetes/client";
import { calicoMinorOf } from "../defaults";
import { CALICO_NODE } from "../names";

/** A CRD whose `spec` schema this program keeps open: its name and the version it serves. */
export interface OpenSchema {
  readonly name: string;
  readonly version: string;
}

interface CrdVersion {
  name?: string;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether a schema node declares fields (its properties), rather than accepting any. */
export function declaresFields(node: unknown): boolean {
  return isRecord(node) && isRecord(node.properties) && Object.keys(node.properties).length > 0;
}

/**
 * The existing CRD's schema for `version`, when its `spec` declares fields (stricter than an open spec),
 * else undefined. `crd` is the CRD as the API server returns it, or as a manifest wrote it.
 */
export function stricterSchema(crd: unknown, version: string): Record<string, unknown> | undefined {
  const spec = isRecord(crd) && isRecord(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? (spec.versions as CrdVersion[]) : [];
  const schema = versions.find((v) => v.name === version)?.schema?.openAPIV3Schema;
  const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
  return declaresFields(properties.spec) ? schema : undefined;
}

/** The Calico line (`3.31`) of a calico/node image reference tagged with its release, else undefined. */
export function calicoLineOfImage(image: string | undefined): string | undefined {
  const match = /\/node:(v[^@]+)(?:@.*)?$/.exec(image ?? "");
  return match === null ? undefined : calicoMinorOf(match[1]);
}

/** The Calico line a calico-node DaemonSet (as the API serves it, or a manifest writes it) runs. */
export function calicoLineOfDaemonSet(daemonSet: unknown): string | undefined {
  type Pod = { containers?: { name: string; image?: string }[] };
  const spec = (daemonSet as { spec?: { template?: { spec?: Pod } } } | undefined)?.spec;
  const containers = spec?.template?.spec?.containers ?? [];
  return calicoLineOfImage((containers.find((c) => c.name === CALICO_NODE) ?? containers[0])?.image);
}

/** Whether CRD schemas written by Calico `installed` (a line) may be kept by a program on `line`. */
export function keepsSchemasOf(installed: string | undefined, line: string): boolean {
  if (installed === undefined) return false;
  const [major, minor] = installed.split(".").map(Number);
  const [wantMajor, wantMinor] = line.split(".").map(Number);
  return major > wantMajor || (major === wantMajor && minor >= wantMinor);
}

/**
 * For each CRD in `open` that exists with a stricter schema: that schema, by CRD name; none when the
 * running Calico (`installed`, its line) is older than `line` or unknown.
 */
export async function keptSchemas(
  credentials: Credentials,
  open: readonly OpenSchema[],
  installed: string | undefined,
  line: string,
): Promise<Record<string, Record<string, unknown>>> {
  const kept: Record<string, Record<string, unknown>> = {};
  if (!keepsSchemasOf(installed, line)) return kept;
  for (const { name, version } of open) {
    let crd: unknown;
    try {
      crd = await kubeRequest(
        credentials,
        "GET",
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(name)}`,
      );
    } catch (error) {
      if (!isKubeRequestError(error, 404)) throw error;
      await requireApiServer(credentials, error.message);
      continue;
    }
    const schema = stricterSchema(crd, version);
    if (schema !== undefined) kept[name] = schema;
  }
  return kept;
}
