/**
 * NetworkSetSpec and GlobalNetworkSetSpec: a list of IP networks that policy selectors can match by label.
 *
 * Written from projectcalico/calico api/pkg/apis/projectcalico/v3/networkset.go and globalnetworkset.go
 * at v3.31.7 and v3.32.1. The two specs are identical; v3.32.1 adds `+listType=set` to `nets`. Calico
 * checks each entry is a CIDR (`validate:"cidr"`) itself; no schema rule restates that.
 */
import type { CalicoMinor } from "../defaults";
import { arrayOf, listSetOn, object, string, type JsonSchema } from "./schema";

/** NetworkSetSpec, and GlobalNetworkSetSpec, which has the same single field. */
export function networkSetSpec(minor: CalicoMinor): JsonSchema {
  return object({
    nets: arrayOf(string(), listSetOn(minor, "3.32")),
  });
}
