/**
 * HostEndpointSpec: a host interface (or all of a host's interfaces) that policy applies to.
 *
 * Written from projectcalico/calico api/pkg/apis/projectcalico/v3/hostendpoint.go at v3.31.7 and v3.32.1,
 * with numorstring.Protocol from api/pkg/lib/numorstring/protocol.go. v3.32.1 adds
 * `+kubebuilder:validation:MaxLength` on `node` (253) and `interfaceName` (15) and `+listType=set` on
 * `expectedIPs` and `profiles` (3.32 only here), Minimum=1/Maximum=65535 on EndpointPort.port (v3.31.7
 * states the same with `uint16` and `validate:"gt=0"`, so both lines), and `XValidation` rules (3.32).
 */
import type { CalicoMinor } from "../defaults";
import {
  arrayOf,
  intOrString,
  listSetOn,
  object,
  onLine,
  string,
  uint16,
  validatedOn,
  type JsonSchema,
} from "./schema";

/** EndpointPort: a named port policy rules can refer to; no field has `omitempty`, so all are required. */
function endpointPort(): JsonSchema {
  return object(
    {
      name: string(),
      protocol: intOrString(),
      port: uint16({ minimum: 1 }),
    },
    ["name", "protocol", "port"],
  );
}

/** HostEndpointSpec. */
export function hostEndpointSpec(minor: CalicoMinor): JsonSchema {
  const set = listSetOn(minor, "3.32");
  return validatedOn(
    minor,
    "3.32",
    object({
      node: string(onLine(minor, "3.32", { maxLength: 253 })),
      interfaceName: string(onLine(minor, "3.32", { maxLength: 15 })),
      expectedIPs: arrayOf(string(), set),
      profiles: arrayOf(string(), set),
      ports: arrayOf(endpointPort()),
    }),
    [
      {
        rule: "(has(self.interfaceName) && size(self.interfaceName) > 0) || (has(self.expectedIPs) && size(self.expectedIPs) > 0)",
        message: "at least one of interfaceName or expectedIPs must be specified",
        reason: "FieldValueInvalid",
      },
      {
        rule: "has(self.node) && size(self.node) > 0",
        message: "node must be specified",
        reason: "FieldValueInvalid",
      },
    ],
  );
}
