/**
 * Which Typha keeps which Felix connected, per pair of Calico lines, as projectcalico/calico decides it.
 * A Felix stays connected when each side accepts the other's hello and Felix can read what Typha sends:
 * - Typha reads Felix's MsgClientHello in doHandshake (typha/pkg/syncserver/sync_server.go) and
 *   disconnects a client it refuses;
 * - Felix reads Typha's MsgServerHello (typha/pkg/syncclient/sync_client.go) and ends the connection
 *   unless it says SupportsNodeResourceUpdates and the SyncerType Felix asked for;
 * - Felix parses each key Typha sends (typha/pkg/syncproto/sync_proto.go SerializedUpdate.ToUpdate).
 * When the connection ends Felix exits, "Connection to Typha failed" (felix/daemon/daemon.go at v3.31.7
 * and v3.32.1), and calico-node stays not ready until a Typha accepts it. The DaemonSet controller then
 * deletes every unavailable pod of an old template at once, outside maxUnavailable (kubernetes v1.35.4
 * pkg/controller/daemon/update.go rollingUpdate: "out of date and not available, allowing replacement").
 *
 * Per line, not per release: within each line the handshake is the same in every release. Between
 * v3.31.0 and v3.31.7, typha/pkg/syncproto/sync_proto.go and typha/pkg/syncclient/sync_client.go do not
 * change. sync_server.go only caps an inbound message at 1 MiB (projectcalico/calico#12591; a hello is
 * far smaller) and logs its config differently (#12606). Between v3.32.0 and v3.32.1 none of the three
 * files changes. So every release pair takes the answer of its lines' pair.
 */
import { type CalicoMinor, calicoMinorOf } from "./defaults";

/** Whether a Felix of one line stays connected to a Typha of another, and the upstream code that decides it. */
export interface TyphaFelixPair {
  readonly typha: CalicoMinor;
  readonly felix: CalicoMinor;
  readonly connects: boolean;
  /** The files and tags of projectcalico/calico that decide it. */
  readonly source: string;
}

const SAME_LINE =
  "the same line's Typha and Felix: each release's hello carries what its own side requires (typha/pkg/syncclient/sync_client.go and typha/pkg/syncserver/sync_server.go at that tag)";

export const TYPHA_FELIX: readonly TyphaFelixPair[] = [
  { typha: "3.31", felix: "3.31", connects: true, source: `${SAME_LINE}, v3.31.7` },
  {
    typha: "3.31",
    felix: "3.32",
    connects: true,
    source:
      "v3.31.7 sync_server.go doHandshake refuses only an unknown SyncerType and sends SupportsNodeResourceUpdates and the SyncerType, which v3.32.1 sync_client.go requires; v3.32.1 libcalico-go/lib/backend/model/keys.go parses v3.31's /calico/v1/policy/tier/<tier>/policy/<name> keys (policy.go parseLegacyPolicyName: 'Legacy policy keys will be sent by Typha versions prior to v3.32.0')",
  },
  {
    typha: "3.32",
    felix: "3.31",
    connects: false,
    source:
      "v3.32.1 (and v3.32.0) sync_server.go doHandshake: 'Client does not support modern policy keys, disconnecting.' unless the hello sets SupportsModernPolicyKeys; v3.31.7 typha/pkg/syncproto/sync_proto.go MsgClientHello has no such field, so v3.31.7 sync_client.go never sends it",
  },
  { typha: "3.32", felix: "3.32", connects: true, source: `${SAME_LINE}, v3.32.1` },
];

/**
 * Whether Typha release `typha` keeps Felix release `felix` connected (exact release tags), by their
 * lines' row; undefined when either is of a line without rows.
 */
export function typhaKeepsFelix(typha: string, felix: string): boolean | undefined {
  const [typhaLine, felixLine] = [calicoMinorOf(typha), calicoMinorOf(felix)];
  return TYPHA_FELIX.find((row) => row.typha === typhaLine && row.felix === felixLine)?.connects;
}
