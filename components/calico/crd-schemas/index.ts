/**
 * Structural `spec` schemas for the crd.projectcalico.org kinds people write by hand: policies, tiers,
 * network sets, host endpoints and Felix settings. Each is written from Calico's API Go types
 * (api/pkg/apis/projectcalico/v3 at the line's pinned tag; sources cited per file), so the API server
 * refuses a misspelt field or a bad value instead of storing it for Felix to ignore. Every other
 * Calico kind keeps the open schema crds.ts renders.
 */
import type { CalicoMinor } from "../defaults";
import { FELIX_CONFIGURATION_VALIDATIONS, felixConfigurationSpec } from "./felix-configuration";
import { hostEndpointSpec } from "./host-endpoint";
import { networkSetSpec } from "./network-sets";
import { globalNetworkPolicySpec, networkPolicySpec } from "./policies";
import type { JsonSchema, Validation } from "./schema";
import { TIER_VALIDATIONS, tierSpec } from "./tier";

export type { JsonSchema } from "./schema";

const SPEC_SCHEMAS: Readonly<Record<string, (minor: CalicoMinor) => JsonSchema>> = {
  NetworkPolicy: networkPolicySpec,
  GlobalNetworkPolicy: globalNetworkPolicySpec,
  NetworkSet: networkSetSpec,
  GlobalNetworkSet: networkSetSpec,
  Tier: tierSpec,
  HostEndpoint: hostEndpointSpec,
  FelixConfiguration: felixConfigurationSpec,
};

/** The crd.projectcalico.org kinds whose `spec` is typed. */
export const TYPED_SPEC_KINDS: readonly string[] = Object.keys(SPEC_SCHEMAS);

/** CEL rules a line states on a whole object (they read its metadata.name), by kind. */
const OBJECT_VALIDATIONS: Readonly<Partial<Record<CalicoMinor, Record<string, readonly Validation[]>>>> = {
  "3.32": { Tier: TIER_VALIDATIONS, FelixConfiguration: FELIX_CONFIGURATION_VALIDATIONS },
};

/** The CEL rules on the whole object of a crd.projectcalico.org kind on a Calico line (none: empty). */
export function objectValidationsFor(kind: string, minor: CalicoMinor): readonly Validation[] {
  return OBJECT_VALIDATIONS[minor]?.[kind] ?? [];
}

/** The `spec` schema of a crd.projectcalico.org kind on a Calico line, or undefined to keep it open. */
export function specSchemaFor(kind: string, minor: CalicoMinor): JsonSchema | undefined {
  return Object.hasOwn(SPEC_SCHEMAS, kind) ? SPEC_SCHEMAS[kind](minor) : undefined;
}
