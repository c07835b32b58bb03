/**
 * The OpenAPI v3 subset a structural CRD schema uses, and small builders that map Calico's Go types onto
 * it the way controller-gen does (sigs.k8s.io/controller-tools pkg/crd/schema.go): Go strings, integers,
 * floats and bools to their JSON types, slices to `items`, maps to `additionalProperties`, pointers and
 * `omitempty` fields to optional properties, and numorstring's Port/Protocol/DSCP (api/pkg/lib/numorstring,
 * `OpenAPISchemaFormat() == "int-or-string"`) to `x-kubernetes-int-or-string` with no `type`.
 *
 * Structural means (Kubernetes "Specifying a structural schema"): every node has a `type` unless it is
 * int-or-string, and `properties` and `additionalProperties` never meet on one node.
 */
import type { CalicoMinor } from "../defaults";

/** One node of a CRD's openAPIV3Schema. */
export interface JsonSchema {
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  format?: "int32" | "int64";
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema;
  items?: JsonSchema;
  enum?: (string | number)[];
  minimum?: number;
  maximum?: number;
  pattern?: string;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  "x-kubernetes-list-type"?: "set";
  "x-kubernetes-int-or-string"?: true;
  "x-kubernetes-preserve-unknown-fields"?: true;
  "x-kubernetes-validations"?: Validation[];
  /** `+kubebuilder:default`: the API server sets it when the field is absent, on write and on read. */
  default?: string | number | boolean;
}

/** A CEL rule (`+kubebuilder:validation:XValidation`): the API server refuses an object it is false for. */
export interface Validation {
  rule: string;
  message: string;
  reason?: "FieldValueForbidden" | "FieldValueInvalid";
}

/** What `+kubebuilder:validation:*` markers add to a string. */
export type StringRules = Pick<JsonSchema, "pattern" | "maxLength">;
/** What `+kubebuilder:validation:Minimum/Maximum` add to a number. */
export type NumberRules = Pick<JsonSchema, "minimum" | "maximum">;
/** What `+kubebuilder:validation:MinItems/MaxItems` and `+listType=set` add to a slice. */
export type ArrayRules = Pick<JsonSchema, "minItems" | "maxItems" | "x-kubernetes-list-type">;

/** Go `string` (and typed strings without a stated value set). */
export function string(rules: StringRules = {}): JsonSchema {
  return { type: "string", ...rules };
}

/** A typed Go string whose values the source states (`+kubebuilder:validation:Enum`, or a validator). */
export function stringEnum(values: readonly string[]): JsonSchema {
  return { type: "string", enum: [...values] };
}

/** A Go integer whose values the source states (`+kubebuilder:validation:Enum`, or a validator). */
export function integerEnum(values: readonly number[]): JsonSchema {
  return { type: "integer", enum: [...values] };
}

/** Go `int` (64-bit on every platform Calico ships for, so no narrower format). */
export function integer(rules: NumberRules = {}): JsonSchema {
  return { type: "integer", ...rules };
}

/** Go `uint16`: its range is the type's own, so no valid value is refused by stating it. */
export function uint16(rules: NumberRules = {}): JsonSchema {
  return { type: "integer", minimum: 0, maximum: 65535, ...rules };
}

/** Go `uint32`, e.g. Felix's mark masks (0xffff0000 is over int32's range, hence int64). */
export function uint32(): JsonSchema {
  return { type: "integer", format: "int64", minimum: 0, maximum: 4294967295 };
}

/** Go `float64` (policy and tier `order`). */
export function number(): JsonSchema {
  return { type: "number" };
}

/** Go `bool`. */
export function boolean(): JsonSchema {
  return { type: "boolean" };
}

/** metav1.Duration: a Go duration string such as "90s" (apimachinery marshals it with `String()`). */
export function duration(rules: StringRules = {}): JsonSchema {
  return string(rules);
}

/** numorstring.Port, numorstring.Protocol, numorstring.DSCP: a number or a string, nothing more stated. */
export function intOrString(rules: StringRules = {}): JsonSchema {
  return { "x-kubernetes-int-or-string": true, ...rules };
}

/** Go slice. */
export function arrayOf(items: JsonSchema, rules: ArrayRules = {}): JsonSchema {
  return { type: "array", items, ...rules };
}

/** Go `map[string]T`. */
export function mapOf(values: JsonSchema): JsonSchema {
  return { type: "object", additionalProperties: values };
}

/**
 * Go struct. `required` lists the fields whose JSON tag has no `omitempty` and that carry no
 * `+optional`, which is how controller-gen decides.
 */
export function object(properties: Record<string, JsonSchema>, required: readonly string[] = []): JsonSchema {
  const unknown = required.filter((name) => !(name in properties));
  if (unknown.length > 0) throw new Error(`required fields without a schema: ${unknown.join(", ")}`);
  return { type: "object", properties, ...(required.length > 0 ? { required: [...required] } : {}) };
}

/**
 * `value` on `line`, nothing on the other line: spread into a property list or a node's rules where a
 * field or a marker exists on one Calico line only.
 */
export function onLine<T extends object>(minor: CalicoMinor, line: CalicoMinor, value: T): Partial<T> {
  return minor === line ? value : {};
}

/** `schema` with the `+kubebuilder:default` value `line` states; the other line gets the schema alone. */
export function defaultedOn(
  minor: CalicoMinor,
  line: CalicoMinor,
  schema: JsonSchema,
  value: NonNullable<JsonSchema["default"]>,
): JsonSchema {
  return minor === line ? { ...schema, default: value } : schema;
}

/** `+listType=set` where `line` states it: the API server refuses duplicates, server-side apply merges as a set. */
export function listSetOn(minor: CalicoMinor, line: CalicoMinor): ArrayRules {
  return onLine(minor, line, { "x-kubernetes-list-type": "set" as const });
}

/** Property groups joined into one struct's properties; a name in two groups is a mistake, not an override. */
export function joinFields(...groups: Record<string, JsonSchema>[]): Record<string, JsonSchema> {
  const joined: Record<string, JsonSchema> = {};
  for (const group of groups) {
    for (const [name, schema] of Object.entries(group)) {
      if (name in joined) throw new Error(`field ${name} is defined twice`);
      joined[name] = schema;
    }
  }
  return joined;
}

/** `schema` with the CEL rules `line` states on its type; the other line gets the schema alone. */
export function validatedOn(
  minor: CalicoMinor,
  line: CalicoMinor,
  schema: JsonSchema,
  rules: readonly Validation[],
): JsonSchema {
  return minor === line ? { ...schema, "x-kubernetes-validations": [...rules] } : schema;
}
