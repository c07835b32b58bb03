/**
 * A policy Rule and its parts (EntityRule, ICMPFields, HTTPMatch, ServiceMatch, ServiceAccountMatch,
 * RuleMetadata), shared by NetworkPolicy and GlobalNetworkPolicy.
 *
 * Written from projectcalico/calico api/pkg/apis/projectcalico/v3/policy_common.go at v3.31.7 and
 * v3.32.1, and api/pkg/lib/numorstring/{port,protocol}.go at both tags (Port and Protocol marshal as a
 * number or a string).
 *
 * v3.32.1 turned most of the v3.31.7 `validate:"..."` tags into `+kubebuilder` markers. Where the v3.32
 * marker states the same set or range as the unchanged v3.31 tag (action, ipVersion, ICMP type and
 * code, checked by libcalico-go/lib/validator/v3/validator.go at v3.31.7), both lines get it: no object
 * Calico calls valid is refused. Markers with no v3.31 counterpart (MaxItems, MaxLength, listType) are
 * rendered on 3.32 only, as are the v3.32 `XValidation` (CEL) rules on Rule and ICMPFields.
 */
import type { CalicoMinor } from "../defaults";
import {
  arrayOf,
  integer,
  integerEnum,
  intOrString,
  listSetOn,
  mapOf,
  object,
  onLine,
  string,
  stringEnum,
  validatedOn,
  type JsonSchema,
  type Validation,
} from "./schema";

/**
 * `type Action string`: Allow, Deny, Log, Pass. v3.32.1 `+kubebuilder:validation:Enum=Allow;Deny;Log;Pass`;
 * v3.31.7 `validate:"action"` (validator.go actionRegex `^(Allow|Deny|Log|Pass)$`).
 */
export const ACTIONS = ["Allow", "Deny", "Log", "Pass"] as const;

/** `type PolicyType string`: v3.32.1 `Enum=Ingress;Egress`, v3.31.7 `validate:"policyType"` (the same two). */
export const POLICY_TYPES = ["Ingress", "Egress"] as const;

/**
 * ICMPFields: type 0-254, code 0-255 (v3.32.1 Minimum/Maximum; v3.31.7 `validate:"gte=0,lte=254"` etc.);
 * v3.32.1's XValidation: no code without a type.
 */
function icmpFields(minor: CalicoMinor): JsonSchema {
  return validatedOn(
    minor,
    "3.32",
    object({
      type: integer({ minimum: 0, maximum: 254 }),
      code: integer({ minimum: 0, maximum: 255 }),
    }),
    [
      {
        rule: "!has(self.code) || has(self.type)",
        message: "ICMP code specified without an ICMP type",
        reason: "FieldValueInvalid",
      },
    ],
  );
}

/** v3.32.1's XValidation rules on Rule (policy_common.go). */
const RULE_VALIDATIONS: readonly Validation[] = [
  {
    rule: "!has(self.http) || !has(self.protocol) || self.protocol == 'TCP' || self.protocol == 6",
    message: "rules with HTTP match must have protocol TCP or unset",
    reason: "FieldValueInvalid",
  },
  {
    rule: "self.action == 'Allow' || !has(self.http)",
    message: "HTTP match is only valid on Allow rules",
    reason: "FieldValueForbidden",
  },
  {
    rule: "!has(self.destination) || !has(self.destination.services) || (!has(self.destination.ports) || size(self.destination.ports) == 0) && (!has(self.destination.notPorts) || size(self.destination.notPorts) == 0)",
    message: "ports and notPorts cannot be specified with services",
    reason: "FieldValueForbidden",
  },
];

/** HTTPMatch: methods and paths; each path is `exact` or `prefix` (Calico's validator checks "one of"). */
function httpMatch(minor: CalicoMinor): JsonSchema {
  const pathString = string(onLine(minor, "3.32", { maxLength: 1024 }));
  const upTo20 = onLine(minor, "3.32", { maxItems: 20 });
  return object({
    methods: arrayOf(string(), upTo20),
    paths: arrayOf(object({ exact: pathString, prefix: pathString }), upTo20),
  });
}

/** ServiceAccountMatch: names (a set on 3.32) and a label selector on the service account. */
function serviceAccountMatch(minor: CalicoMinor): JsonSchema {
  return object({
    names: arrayOf(string(), listSetOn(minor, "3.32")),
    selector: string(),
  });
}

/** ServiceMatch: a Kubernetes Service by name and namespace. */
function serviceMatch(): JsonSchema {
  return object({ name: string(), namespace: string() });
}

/**
 * EntityRule: the source or destination half of a rule. `ports`/`notPorts` items are numorstring.Port
 * (80, "8080:8090" or a named port). `notNets` carries `// listType=set` without the `+` at v3.32.1, which
 * is a comment rather than a marker, so only `nets` is a set.
 */
export function entityRule(minor: CalicoMinor): JsonSchema {
  return object({
    nets: arrayOf(string(), listSetOn(minor, "3.32")),
    selector: string(),
    namespaceSelector: string(),
    services: serviceMatch(),
    ports: arrayOf(intOrString()),
    notNets: arrayOf(string()),
    notSelector: string(),
    notPorts: arrayOf(intOrString()),
    serviceAccounts: serviceAccountMatch(minor),
  });
}

/** Rule: `action` is the one field without `omitempty`, so it is required; the rest are optional. */
export function rule(minor: CalicoMinor): JsonSchema {
  return validatedOn(minor, "3.32", ruleFields(minor), RULE_VALIDATIONS);
}

function ruleFields(minor: CalicoMinor): JsonSchema {
  return object(
    {
      action: stringEnum(ACTIONS),
      // v3.32.1 `+kubebuilder:validation:Enum=4;6`; v3.31.7 `validate:"ipVersion"` (4 or 6).
      ipVersion: integerEnum([4, 6]),
      protocol: intOrString(),
      icmp: icmpFields(minor),
      notProtocol: intOrString(),
      notICMP: icmpFields(minor),
      source: entityRule(minor),
      destination: entityRule(minor),
      http: httpMatch(minor),
      metadata: object({ annotations: mapOf(string()) }),
    },
    ["action"],
  );
}
