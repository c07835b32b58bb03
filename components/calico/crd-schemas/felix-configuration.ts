/**
 * FelixConfigurationSpec: every Felix setting a FelixConfiguration object may carry, per Calico line.
 *
 * Written from projectcalico/calico api/pkg/apis/projectcalico/v3/felixconfig.go at v3.31.7 (170 spec
 * fields) and v3.32.1 (181). The fields are split by concern into felix-dataplane.ts, felix-bpf.ts and
 * felix-operations.ts, each listing its line differences. Only `nodeSelector` lives here: v3.32.1 adds it
 * to choose the nodes a non-default FelixConfiguration applies to. The v3.32.1 `XValidation` rules (no
 * nodeSelector on "default" and "node.*", on the object; not both routeTableRange and routeTableRanges)
 * are rendered on 3.32; `+kubebuilder:default` markers are not.
 */
import type { CalicoMinor } from "../defaults";
import { bpfFields } from "./felix-bpf";
import { dataplaneFields } from "./felix-dataplane";
import { operationsFields } from "./felix-operations";
import { joinFields, object, onLine, string, validatedOn, type JsonSchema, type Validation } from "./schema";

/** FelixConfigurationSpec for a Calico line. */
export function felixConfigurationSpec(minor: CalicoMinor): JsonSchema {
  return validatedOn(
    minor,
    "3.32",
    object(
      joinFields(
        onLine(minor, "3.32", { nodeSelector: string({ maxLength: 1024 }) }),
        dataplaneFields(minor),
        bpfFields(minor),
        operationsFields(minor),
      ),
    ),
    [
      {
        rule: "!has(self.routeTableRange) || !has(self.routeTableRanges)",
        message: "routeTableRange and routeTableRanges cannot both be set",
        reason: "FieldValueForbidden",
      },
    ],
  );
}

/** v3.32.1's XValidation rule on the FelixConfiguration object: nodeSelector only on a node-group one. */
export const FELIX_CONFIGURATION_VALIDATIONS: readonly Validation[] = [
  {
    rule: "self.metadata.name == 'default' || self.metadata.name.startsWith('node.') ? !has(self.spec.nodeSelector) : true",
    message: "nodeSelector must not be set on the 'default' or per-node ('node.*') FelixConfiguration",
    reason: "FieldValueForbidden",
  },
];
