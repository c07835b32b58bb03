/**
 * FelixConfigurationSpec's eBPF data plane fields (`bpf*`, and `cgroupV2Path`, which connect-time load
 * balancing uses).
 *
 * Written from projectcalico/calico api/pkg/apis/projectcalico/v3/felixconfig.go at v3.31.7 and v3.32.1.
 * Differences: `bpfKubeProxyEndpointSlicesEnabled` (deprecated, no effect) exists on v3.31.7 only;
 * `bpfMaglevMaxEndpointsPerService` and `bpfMaglevMaxServices` on v3.32.1 only; `bpfRedirectToPeer`'s
 * `+kubebuilder:validation:Enum` is Enabled;Disabled;L2Only on v3.31.7 and Enabled;Disabled on v3.32.1.
 */
import type { CalicoMinor } from "../defaults";
import { ENABLED_DISABLED, felixDuration } from "./felix-common";
import {
  arrayOf,
  boolean,
  integer,
  intOrString,
  mapOf,
  object,
  onLine,
  string,
  stringEnum,
  type JsonSchema,
} from "./schema";

/**
 * `type BPFConntrackTimeout string` with `+kubebuilder:validation:Pattern`: a duration (microseconds
 * allowed) or "Auto". Unlike felix-common.ts's DURATION_PATTERN this one escapes the dot once.
 */
export const BPF_CONNTRACK_TIMEOUT_PATTERN = String.raw`^(([0-9]*(\.[0-9]*)?(ms|s|h|m|us)+)+|Auto)$`;

/** BPFConntrackTimeouts: every field a *BPFConntrackTimeout, all `+optional`. */
function bpfConntrackTimeouts(): JsonSchema {
  const timeout = string({ pattern: BPF_CONNTRACK_TIMEOUT_PATTERN });
  return object({
    creationGracePeriod: timeout,
    tcpSynSent: timeout,
    tcpEstablished: timeout,
    tcpFinsSeen: timeout,
    tcpResetSeen: timeout,
    udpTimeout: timeout,
    genericTimeout: timeout,
    icmpTimeout: timeout,
  });
}

/** The eBPF fields, in felixconfig.go's order. */
export function bpfFields(minor: CalicoMinor): Record<string, JsonSchema> {
  return {
    bpfEnabled: boolean(),
    bpfDisableUnprivileged: boolean(),
    bpfJITHardening: stringEnum(["Auto", "Strict"]),
    // `json:"bpfLogLevel"` has no omitempty but carries +optional, so it is not required.
    bpfLogLevel: string({ pattern: "^(?i)(Off|Info|Debug)?$" }),
    bpfConntrackLogLevel: stringEnum(["Off", "Debug"]),
    bpfConntrackMode: stringEnum(["Auto", "Userspace", "BPFProgram"]),
    bpfConntrackTimeouts: bpfConntrackTimeouts(),
    bpfLogFilters: mapOf(string()),
    bpfCTLBLogFilter: string(),
    bpfDataIfacePattern: string(),
    bpfL3IfacePattern: string(),
    bpfConnectTimeLoadBalancingEnabled: boolean(),
    bpfConnectTimeLoadBalancing: stringEnum(["TCP", "Enabled", "Disabled"]),
    bpfHostNetworkedNATWithoutCTLB: stringEnum(ENABLED_DISABLED),
    bpfExternalServiceMode: string({ pattern: "^(?i)(Tunnel|DSR)?$" }),
    bpfDSROptoutCIDRs: arrayOf(string()),
    bpfExtToServiceConnmark: integer(),
    bpfKubeProxyIptablesCleanupEnabled: boolean(),
    bpfKubeProxyMinSyncPeriod: felixDuration(),
    bpfKubeProxyHealthzPort: integer(),
    ...onLine(minor, "3.31", { bpfKubeProxyEndpointSlicesEnabled: boolean() }),
    bpfPSNATPorts: intOrString(),
    bpfMapSizeNATFrontend: integer(),
    bpfMapSizeNATBackend: integer(),
    bpfMapSizeNATAffinity: integer(),
    bpfMapSizeRoute: integer(),
    bpfMapSizeConntrack: integer(),
    bpfMapSizePerCpuConntrack: integer(),
    bpfMapSizeConntrackScaling: string({ pattern: "^(?i)(Disabled|DoubleIfFull)?$" }),
    bpfMapSizeConntrackCleanupQueue: integer({ minimum: 1 }),
    bpfMapSizeIPSets: integer(),
    bpfMapSizeIfState: integer(),
    bpfHostConntrackBypass: boolean(),
    bpfEnforceRPF: string({ pattern: "^(?i)(Disabled|Strict|Loose)?$" }),
    bpfPolicyDebugEnabled: boolean(),
    bpfForceTrackPacketsFromIfaces: arrayOf(string()),
    bpfDisableGROForIfaces: string(),
    bpfExcludeCIDRsFromNAT: arrayOf(string()),
    bpfExportBufferSizeMB: integer(),
    cgroupV2Path: string(),
    bpfRedirectToPeer: stringEnum(minor === "3.31" ? [...ENABLED_DISABLED, "L2Only"] : ENABLED_DISABLED),
    bpfAttachType: stringEnum(["TC", "TCX"]),
    bpfProfiling: stringEnum(ENABLED_DISABLED),
    ...onLine(minor, "3.32", {
      bpfMaglevMaxEndpointsPerService: integer(),
      bpfMaglevMaxServices: integer(),
    }),
  };
}
