/**
 * Values several FelixConfiguration field groups share.
 *
 * Written from projectcalico/calico api/pkg/apis/projectcalico/v3/felixconfig.go at v3.31.7 and v3.32.1.
 */
import { duration, type JsonSchema } from "./schema";

/**
 * The `+kubebuilder:validation:Pattern` on most metav1.Duration fields, exactly as felixconfig.go writes
 * it in a Go raw string: `\\.` is a literal backslash then any character, so "90s" and "1m30s" match
 * but "1.5s" does not. That is the upstream marker, kept as stated.
 */
export const DURATION_PATTERN = String.raw`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`;

/** `+kubebuilder:validation:Type=string` plus {@link DURATION_PATTERN}, on a metav1.Duration field. */
export function felixDuration(): JsonSchema {
  return duration({ pattern: DURATION_PATTERN });
}

/** The `Enum=Enabled;Disabled` many switches carry (and the typed strings FloatingIPType and the like). */
export const ENABLED_DISABLED = ["Enabled", "Disabled"] as const;
