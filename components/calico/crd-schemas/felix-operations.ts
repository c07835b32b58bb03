/**
 * FelixConfigurationSpec's operational fields: logging, status reporting, health, Prometheus metrics,
 * usage reporting, debugging, flow logs, the Go runtime, and integrations (OpenStack metadata, AWS,
 * Windows, Istio, the policy sync API).
 *
 * Written from projectcalico/calico api/pkg/apis/projectcalico/v3/felixconfig.go at v3.31.7 and v3.32.1,
 * with numorstring.DSCP from api/pkg/lib/numorstring/dscp.go at v3.32.1. Differences: the four
 * `prometheusMetrics{CAFile,CertFile,KeyFile,ClientAuth}` fields and `istioAmbientMode` and
 * `istioDSCPMark` exist on v3.32.1 only.
 */
import type { CalicoMinor } from "../defaults";
import { ENABLED_DISABLED, felixDuration } from "./felix-common";
import {
  arrayOf,
  boolean,
  duration,
  integer,
  intOrString,
  joinFields,
  object,
  onLine,
  string,
  stringEnum,
  type JsonSchema,
} from "./schema";

/** `Pattern=^(?i)(Trace|Debug|Info|Warning|Error|Fatal)?$` on the three logSeverity* fields. */
const LOG_SEVERITY = "^(?i)(Trace|Debug|Info|Warning|Error|Fatal)?$";

/**
 * `type PrometheusMetricsClientAuthType string` (v3.32.1). Its marker is spelt `validation:enum` (lower
 * case, unlike every other marker in the file); the field's `validate:"omitempty,oneof=..."` states the
 * same four values, so the set is rendered either way.
 */
const PROMETHEUS_CLIENT_AUTH = [
  "RequireAndVerifyClientCert",
  "RequireAnyClientCert",
  "VerifyClientCertIfGiven",
  "NoClientCert",
];

/** HealthTimeoutOverride: neither field has omitempty; `timeout` is a metav1.Duration without a pattern. */
function healthTimeoutOverride(): JsonSchema {
  return object({ name: string(), timeout: duration() }, ["name", "timeout"]);
}

/** Logging, status reporting, health and metrics. */
function observabilityFields(minor: CalicoMinor): Record<string, JsonSchema> {
  return {
    logPrefix: string({ pattern: "^([a-zA-Z0-9%: /_-])*$" }),
    logActionRateLimit: string({ pattern: String.raw`^[1-9]\d{0,3}/(?:second|minute|hour|day)$` }),
    logActionRateLimitBurst: integer({ minimum: 0, maximum: 9999 }),
    logFilePath: string(),
    logSeverityFile: string({ pattern: LOG_SEVERITY }),
    logSeverityScreen: string({ pattern: LOG_SEVERITY }),
    logSeveritySys: string({ pattern: LOG_SEVERITY }),
    logDebugFilenameRegex: string(),
    reportingInterval: felixDuration(),
    reportingTTL: felixDuration(),
    endpointReportingEnabled: boolean(),
    endpointReportingDelay: felixDuration(),
    endpointStatusPathPrefix: string(),
    healthEnabled: boolean(),
    healthHost: string(),
    healthPort: integer(),
    healthTimeoutOverrides: arrayOf(healthTimeoutOverride()),
    prometheusMetricsEnabled: boolean(),
    prometheusMetricsHost: string(),
    prometheusMetricsPort: integer(),
    prometheusGoMetricsEnabled: boolean(),
    prometheusProcessMetricsEnabled: boolean(),
    prometheusWireGuardMetricsEnabled: boolean(),
    ...onLine(minor, "3.32", {
      prometheusMetricsCAFile: string(),
      prometheusMetricsCertFile: string(),
      prometheusMetricsKeyFile: string(),
      prometheusMetricsClientAuth: stringEnum(PROMETHEUS_CLIENT_AUTH),
    }),
  };
}

/** Usage reporting, debugging, flow logs and the Go runtime. */
function runtimeFields(): Record<string, JsonSchema> {
  return {
    usageReportingEnabled: boolean(),
    usageReportingInitialDelay: felixDuration(),
    usageReportingInterval: felixDuration(),
    debugMemoryProfilePath: string(),
    debugDisableLogDropping: boolean(),
    debugSimulateCalcGraphHangAfter: felixDuration(),
    debugSimulateDataplaneHangAfter: felixDuration(),
    debugSimulateDataplaneApplyDelay: felixDuration(),
    debugHost: string(),
    debugPort: integer(),
    flowLogsPolicyEvaluationMode: stringEnum(["None", "Continuous"]),
    flowLogsFlushInterval: felixDuration(),
    flowLogsCollectorDebugTrace: boolean(),
    flowLogsGoldmaneServer: string(),
    flowLogsLocalReporter: stringEnum(["Disabled", "Enabled"]),
    goGCThreshold: integer(),
    goMemoryLimitMB: integer(),
    goMaxProcs: integer(),
  };
}

/** OpenStack metadata, the policy sync API, AWS, Windows and Istio. */
function integrationFields(minor: CalicoMinor): Record<string, JsonSchema> {
  return {
    metadataAddr: string(),
    metadataPort: integer(),
    openstackRegion: string(),
    policySyncPathPrefix: string(),
    awsSrcDstCheck: stringEnum(["DoNothing", "Enable", "Disable"]),
    windowsManageFirewallRules: stringEnum(ENABLED_DISABLED),
    ...onLine(minor, "3.32", {
      istioAmbientMode: stringEnum(ENABLED_DISABLED),
      // numorstring.DSCP: `+kubebuilder:validation:XIntOrString` and `Pattern=^.*` (dscp.go, v3.32.1).
      istioDSCPMark: intOrString({ pattern: "^.*" }),
    }),
  };
}

/** Every operational field. */
export function operationsFields(minor: CalicoMinor): Record<string, JsonSchema> {
  return joinFields(observabilityFields(minor), runtimeFields(), integrationFields(minor));
}
