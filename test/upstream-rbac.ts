/**
 * Upstream's policy-only RBAC as data (fixtures/upstream-rbac.yaml) and this program's reasoned exclusions
 * from it (fixtures/upstream-rbac-exclusions.yaml), flattened to one (apiGroup, resource, verb) per check.
 * Used by the offline RBAC test and by the kubectl auth can-i checks on the local control plane.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import type { PolicyRule } from "../components/calico/object-shapes";

export type Workload = "calico-node" | "calico-typha";

export const WORKLOADS: readonly Workload[] = ["calico-node", "calico-typha"];

/** One permission: `verb` on `resource` of `apiGroup`, limited to `resourceNames` when upstream limits it. */
export interface Permission {
  apiGroup: string;
  resource: string;
  verb: string;
  resourceNames?: string[];
}

interface UpstreamLine {
  releases: Record<string, string>;
  rules: PolicyRule[];
}

export interface Exclusion {
  workloads: Workload[];
  lines?: string[];
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  reason: string;
}

function fixture(name: string): unknown {
  return parse(readFileSync(path.join(__dirname, "fixtures", name), "utf8"));
}

/** Upstream's rules by release line ("3.31"), with the tags and commits they were read at. */
export const UPSTREAM_RBAC = fixture("upstream-rbac.yaml") as Record<string, UpstreamLine>;

export const EXCLUSIONS = fixture("upstream-rbac-exclusions.yaml") as Exclusion[];

/** A rule list as one permission per apiGroup, resource and verb. */
export function permissionsOf(rules: readonly PolicyRule[]): Permission[] {
  return rules.flatMap((rule) =>
    (rule.apiGroups ?? []).flatMap((apiGroup) =>
      (rule.resources ?? []).flatMap((resource) =>
        rule.verbs.map((verb) => ({
          apiGroup,
          resource,
          verb,
          ...(rule.resourceNames ? { resourceNames: rule.resourceNames } : {}),
        })),
      ),
    ),
  );
}

export function excludes(exclusion: Exclusion, line: string, workload: Workload, p: Permission): boolean {
  return (
    exclusion.workloads.includes(workload) &&
    (exclusion.lines === undefined || exclusion.lines.includes(line)) &&
    exclusion.apiGroups.includes(p.apiGroup) &&
    exclusion.resources.includes(p.resource) &&
    exclusion.verbs.includes(p.verb)
  );
}

/** Upstream's permissions on `line` split into those `workload` must have and those it is denied, with why. */
export function upstreamPermissions(line: string, workload: Workload) {
  const required: Permission[] = [];
  const excluded: Array<Permission & { reason: string }> = [];
  for (const permission of permissionsOf(UPSTREAM_RBAC[line].rules)) {
    const exclusion = EXCLUSIONS.find((e) => excludes(e, line, workload, permission));
    if (exclusion) excluded.push({ ...permission, reason: exclusion.reason });
    else required.push(permission);
  }
  return { required, excluded };
}

/** Whether `rules` grant `p`: a rule naming resources grants only those names. */
export function grants(rules: readonly PolicyRule[], p: Permission): boolean {
  return rules.some(
    (rule) =>
      (rule.apiGroups ?? []).includes(p.apiGroup) &&
      (rule.resources ?? []).includes(p.resource) &&
      rule.verbs.includes(p.verb) &&
      (rule.resourceNames === undefined ||
        (p.resourceNames !== undefined && p.resourceNames.every((n) => rule.resourceNames?.includes(n)))),
  );
}

/** `verb resource.group` as kubectl auth can-i and error messages write it. */
export function describePermission(p: Permission): string {
  const resource = p.apiGroup === "" ? p.resource : `${p.resource}.${p.apiGroup}`;
  return `${p.verb} ${resource}${p.resourceNames ? `/${p.resourceNames.join(",")}` : ""}`;
}
