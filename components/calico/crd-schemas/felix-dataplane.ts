/**
 * FelixConfigurationSpec's data plane fields outside eBPF: the driver, iptables/nftables/ipsets/XDP,
 * routes and route tables, NAT, failsafe ports, interfaces and MTU, and the IPIP, VXLAN and WireGuard
 * overlays.
 *
 * Written from projectcalico/calico api/pkg/apis/projectcalico/v3/felixconfig.go at v3.31.7 and v3.32.1,
 * with numorstring.Port from api/pkg/lib/numorstring/port.go. Differences: `iptablesLockFilePath` and
 * `iptablesLockTimeout` exist on v3.31.7 only; the four `ipv*RoutePriority` fields and
 * `liveMigrationRouteConvergenceTime` on v3.32.1 only; v3.32.1 adds `+kubebuilder:validation:Enum=
 * Legacy;NFT;Auto` to `type IptablesBackend`, on top of the field's case-insensitive Pattern.
 */
import type { CalicoMinor } from "../defaults";
import { ENABLED_DISABLED, felixDuration } from "./felix-common";
import {
  arrayOf,
  boolean,
  defaultedOn,
  duration,
  integer,
  intOrString,
  joinFields,
  object,
  onLine,
  string,
  stringEnum,
  uint16,
  uint32,
  type JsonSchema,
} from "./schema";

/** ProtoPort: a failsafe port; `port` has no omitempty, so it is required. */
function protoPort(): JsonSchema {
  return object({ protocol: string(), port: uint16(), net: string() }, ["port"]);
}

/** RouteTableRange and RouteTableIDRange: both bounds required. */
function routeTableRange(): JsonSchema {
  return object({ min: integer(), max: integer() }, ["min", "max"]);
}

/** Driver, refresh intervals, iptables, nftables, ipsets and XDP. */
function kernelFields(minor: CalicoMinor): Record<string, JsonSchema> {
  return {
    useInternalDataplaneDriver: boolean(),
    dataplaneDriver: string(),
    // No pattern marker on this one, nor on nftablesRefreshInterval.
    dataplaneWatchdogTimeout: duration(),
    ipv6Support: boolean(),
    routeRefreshInterval: felixDuration(),
    interfaceRefreshInterval: felixDuration(),
    iptablesRefreshInterval: felixDuration(),
    iptablesPostWriteCheckInterval: felixDuration(),
    ...onLine(minor, "3.31", { iptablesLockFilePath: string(), iptablesLockTimeout: felixDuration() }),
    iptablesLockProbeInterval: felixDuration(),
    featureDetectOverride: string({
      pattern: "^([a-zA-Z0-9-_]+=(true|false|),)*([a-zA-Z0-9-_]+=(true|false|))?$",
    }),
    featureGates: string({ pattern: "^([a-zA-Z0-9-_]+=([^=]+),)*([a-zA-Z0-9-_]+=([^=]+))?$" }),
    ipsetsRefreshInterval: felixDuration(),
    maxIpsetSize: integer(),
    iptablesBackend: {
      ...string({ pattern: "^(?i)(Auto|Legacy|NFT)?$" }),
      ...onLine(minor, "3.32", { enum: ["Legacy", "NFT", "Auto"] }),
    },
    xdpRefreshInterval: felixDuration(),
    netlinkTimeout: felixDuration(),
    chainInsertMode: string({ pattern: "^(?i)(Insert|Append)?$" }),
    defaultEndpointToHostAction: string({ pattern: "^(?i)(Drop|Accept|Return)?$" }),
    iptablesFilterAllowAction: string({ pattern: "^(?i)(Accept|Return)?$" }),
    iptablesMangleAllowAction: string({ pattern: "^(?i)(Accept|Return)?$" }),
    iptablesFilterDenyAction: string({ pattern: "^(?i)(Drop|Reject)?$" }),
    iptablesMarkMask: uint32(),
    disableConntrackInvalidCheck: boolean(),
    iptablesNATOutgoingInterfaceFilter: string(),
    sidecarAccelerationEnabled: boolean(),
    xdpEnabled: boolean(),
    genericXDPEnabled: boolean(),
    // `+kubebuilder:default=Auto` on 3.32 (v3.32.1 felixconfig.go), Felix's own default on both lines.
    nftablesMode: defaultedOn(minor, "3.32", stringEnum(["Disabled", "Enabled", "Auto"]), "Auto"),
    nftablesRefreshInterval: duration(),
    nftablesFilterAllowAction: string({ pattern: "^(?i)(Accept|Return)?$" }),
    nftablesMangleAllowAction: string({ pattern: "^(?i)(Accept|Return)?$" }),
    nftablesFilterDenyAction: string({ pattern: "^(?i)(Drop|Reject)?$" }),
    nftablesMarkMask: uint32(),
  };
}

/** Interfaces, failsafe ports, NAT, routes and forwarding. */
function hostNetworkFields(minor: CalicoMinor): Record<string, JsonSchema> {
  return {
    interfacePrefix: string(),
    interfaceExclude: string(),
    failsafeInboundHostPorts: arrayOf(protoPort()),
    failsafeOutboundHostPorts: arrayOf(protoPort()),
    // numorstring.Port: 30000 or "30000:32767".
    kubeNodePortRanges: arrayOf(intOrString()),
    natPortRange: intOrString(),
    natOutgoingAddress: string(),
    natOutgoingExclusions: stringEnum(["IPPoolsOnly", "IPPoolsAndHostIPs"]),
    deviceRouteSourceAddress: string(),
    deviceRouteSourceAddressIPv6: string(),
    deviceRouteProtocol: integer(),
    removeExternalRoutes: boolean(),
    programClusterRoutes: stringEnum(ENABLED_DISABLED),
    ipForwarding: stringEnum(ENABLED_DISABLED),
    // Go field ExternalNodesCIDRList, JSON name externalNodesList.
    externalNodesList: arrayOf(string()),
    routeSource: string({ pattern: "^(?i)(WorkloadIPs|CalicoIPAM)?$" }),
    routeTableRanges: arrayOf(routeTableRange()),
    routeTableRange: routeTableRange(),
    routeSyncDisabled: boolean(),
    ...onLine(minor, "3.32", {
      ipv4NormalRoutePriority: integer(),
      ipv4ElevatedRoutePriority: integer(),
      ipv6NormalRoutePriority: integer(),
      ipv6ElevatedRoutePriority: integer(),
      // This field's marker escapes the dot once, unlike DURATION_PATTERN.
      liveMigrationRouteConvergenceTime: duration({ pattern: String.raw`^([0-9]+(\.[0-9]+)?(ms|s|m|h))*$` }),
    }),
    serviceLoopPrevention: string({ pattern: "^(?i)(Drop|Reject|Disabled)?$" }),
    workloadSourceSpoofing: string({ pattern: "^(?i)(Disabled|Any)?$" }),
    mtuIfacePattern: string(),
    floatingIPs: stringEnum(ENABLED_DISABLED),
    requireMTUFile: boolean(),
  };
}

/** IPIP, VXLAN and WireGuard. */
function overlayFields(): Record<string, JsonSchema> {
  return {
    ipipEnabled: boolean(),
    ipipMTU: integer(),
    vxlanEnabled: boolean(),
    vxlanMTU: integer(),
    vxlanMTUV6: integer(),
    vxlanPort: integer(),
    vxlanVNI: integer(),
    allowVXLANPacketsFromWorkloads: boolean(),
    allowIPIPPacketsFromWorkloads: boolean(),
    wireguardEnabled: boolean(),
    wireguardEnabledV6: boolean(),
    wireguardThreadingEnabled: boolean(),
    wireguardListeningPort: integer(),
    wireguardListeningPortV6: integer(),
    wireguardRoutingRulePriority: integer(),
    wireguardInterfaceName: string(),
    wireguardInterfaceNameV6: string(),
    wireguardMTU: integer(),
    wireguardMTUV6: integer(),
    wireguardHostEncryptionEnabled: boolean(),
    // Go field WireguardPersistentKeepAlive, JSON name wireguardKeepAlive.
    wireguardKeepAlive: felixDuration(),
  };
}

/** Every data plane field outside eBPF. */
export function dataplaneFields(minor: CalicoMinor): Record<string, JsonSchema> {
  return joinFields(kernelFields(minor), hostNetworkFields(minor), overlayFields());
}
