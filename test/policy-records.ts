/**
 * Records broken on purpose for the policy tests: copies of evaluated records with one input
 * changed, and the assertion that a policy reports exactly that one record.
 */
import * as assert from "node:assert/strict";
import { CALICO_NODE, typeOfUrn } from "../policy/policies";
import { type ResourceRecord, type StackEvaluation } from "../offline/engine";
import { ofType } from "./helpers";
import { type Policy, runPolicy } from "./policy-harness";

export const CRD = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition";
export const DAEMON_SET = "kubernetes:apps/v1:DaemonSet";
export const CLUSTER_ROLE = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole";
export const SUBNET = "aws:ec2/subnet:Subnet";
export const ADDON = "aws:eks/addon:Addon";

export type Inputs = Record<string, unknown>;

/** A copy of `record` with its inputs changed by `edit` (and any other fields replaced). */
export function broken(
  record: ResourceRecord,
  edit: (inputs: Inputs) => void,
  fields: Partial<ResourceRecord> = {},
): ResourceRecord {
  const inputs = structuredClone(record.inputs);
  edit(inputs);
  return { ...record, ...fields, inputs };
}

/** `records` with `replacement` in place of the record with the same URN (or `original`'s). */
export function replaced(
  records: readonly ResourceRecord[],
  replacement: ResourceRecord,
  original = replacement,
): ResourceRecord[] {
  return records.map((r) => (r.urn === original.urn ? replacement : r));
}

/**
 * `group` moved onto `subnets`. With plain `ids` (not produced by any subnet of the stack) the group
 * keeps only its dependency list, as when an id is typed into config.
 */
export function onSubnets(group: ResourceRecord, subnets: ResourceRecord[], ids?: string[]): ResourceRecord {
  const others = group.dependencies.filter((urn) => typeOfUrn(urn) !== SUBNET);
  const otherProperties = Object.fromEntries(
    Object.entries(group.propertyDependencies).filter(([key]) => key !== "subnetIds"),
  );
  return broken(
    group,
    (i) => {
      i.subnetIds = ids ?? subnets.map((s) => `<subnet-id:${s.name}>`);
    },
    {
      dependencies: [...others, ...subnets.map((s) => s.urn)].sort(),
      propertyDependencies:
        ids === undefined
          ? { ...otherProperties, subnetIds: subnets.map((s) => s.urn).sort() }
          : otherProperties,
    },
  );
}

export function calicoNode(evaluation: StackEvaluation): ResourceRecord {
  const matches = ofType(evaluation, DAEMON_SET).filter(
    (r) => (r.inputs.metadata as { name?: string }).name === CALICO_NODE,
  );
  assert.equal(matches.length, 1);
  return matches[0];
}

/** Runs `policy` and asserts it reports exactly one violation, about `urn`, matching `message`. */
export async function expectOne(policy: Policy, records: ResourceRecord[], urn: string, message: RegExp) {
  const { violations } = await runPolicy(policy, records);
  assert.equal(violations.length, 1, JSON.stringify(violations, null, 2));
  assert.equal(violations[0].policy, policy.name);
  assert.equal(violations[0].urn, urn);
  assert.match(violations[0].message, message);
}
