/**
 * TierSpec: where a tier sits among tiers and what happens to traffic no policy in it decides.
 *
 * Written from projectcalico/calico api/pkg/apis/projectcalico/v3/tier.go at v3.31.7 and v3.32.1. Both
 * lines: `order *float64`, `defaultAction *Action` with `+kubebuilder:validation:Enum=Pass;Deny`. v3.32.1
 * adds `+kubebuilder:default=Deny` and a status (conditions); neither is rendered, the status stays as
 * given like every other kind's.
 */
import { number, object, stringEnum, type JsonSchema } from "./schema";

/** `+kubebuilder:validation:Enum=Pass;Deny` on TierSpec.DefaultAction. */
export const TIER_DEFAULT_ACTIONS = ["Pass", "Deny"] as const;

/** TierSpec (the same on both lines). */
export function tierSpec(): JsonSchema {
  return object({
    order: number(),
    defaultAction: stringEnum(TIER_DEFAULT_ACTIONS),
  });
}
