/**
 * The replacement rules (./replacements.ts) of the program's own steps, dynamic resources whose providers
 * live in components/calico: the takeover, the line and install checks, the Felix cleanup and its
 * restore. Their diffs name no replaced property, so every change is an update; each row says which
 * inputs take no step and, for a step whose diff reads the cluster, what it looks for there.
 */
import { TAKEOVER_TYPE } from "../components/calico/takeover";
import { LINE_CHECK_TYPE } from "../components/calico/line-check";
import { INSTALL_CHECK_TYPE } from "../components/calico/install-check";
import { FELIX_CLEANUP_TYPE } from "../components/calico/felix-cleanup";
import { FELIX_RESTORE_TYPE } from "../components/calico/felix-cleanup/restore";
import { REMOVAL_MARKER_TYPE } from "../components/calico/removal-marker";
import type { ReplacementRule } from "./diff-types";

/**
 * New code of a dynamic provider whose diff compares only named inputs: the dynamic provider host hands the
 * inputs to the provider's own diff and "does not take any special action if the provider has changed"
 * (@pulumi/pulumi cmd/dynamic-provider/index.js diff), so `__provider` alone takes no step. The checking
 * steps and the Felix cleanup compare every input, `__provider` too, and do update.
 */
const NEW_PROVIDER_CODE = {
  path: "__provider",
  when: () => true,
  why: "new provider code: its diff compares only named inputs",
};

/** The steps' rules by type token. */
export const STEP_REPLACEMENTS: Readonly<Record<string, ReplacementRule>> = {
  [TAKEOVER_TYPE]: {
    // Its diff names no replaced property, so every change is an update that runs the step again.
    replaceOn: [],
    // What it finds is known only once it has run: a preview shows what takes it as updated.
    updateOutputs: {
      outputs: ["schemas"],
      except: [],
      why: "the step reads the cluster's CRD schemas again, known only once it has run",
    },
    ignored: [NEW_PROVIDER_CODE],
    source: "components/calico/takeover/index.ts takeoverProvider.diff (changes, never replaces)",
  },
  [LINE_CHECK_TYPE]: {
    // Its diff names no replaced property: a new line or new credentials update it.
    replaceOn: [],
    ignored: [
      NEW_PROVIDER_CODE,
      {
        path: "installer",
        when: () => true,
        why: "who installs changes no line: its diff compares the line, the kinds and the credentials",
      },
    ],
    source: "components/calico/line-check.ts lineCheckProvider.diff (changes, never replaces)",
  },
  [INSTALL_CHECK_TYPE]: {
    // Its diff names no replaced property and compares only its inputs: what its check reads is no change.
    replaceOn: [],
    ignored: [
      NEW_PROVIDER_CODE,
      {
        path: "objects",
        when: () => true,
        why: "the objects it looks for after a stopped removal are read in its check: its diff compares only installer, namespace, adopt and the credentials",
      },
    ],
    source: "components/calico/install-check.ts installCheckProvider.diff (changes, never replaces)",
  },
  [REMOVAL_MARKER_TYPE]: {
    // Its diff names no replaced property: a changed input is an update that only records it for the delete.
    replaceOn: [],
    source: "components/calico/removal-marker.ts removalMarkerProvider.diff (changes, never replaces)",
  },
  [FELIX_CLEANUP_TYPE]: {
    // Its diff names no replaced property: a changed input is an update that only records it for the delete.
    replaceOn: [],
    source: "components/calico/felix-cleanup/index.ts felixCleanupProvider.diff (changes, never replaces)",
  },
  [FELIX_RESTORE_TYPE]: {
    // Its diff names no replaced property; it leaves out what says only how a restore runs (restore.ts
    // HOW_IT_RUNS) and compares the rest, its code too.
    replaceOn: [],
    ignored: [
      {
        path: "daemonSet",
        when: () => true,
        why: "the restore applies what is rendered when it runs; calico-node's own step shows the change",
      },
      {
        path: "timeoutMinutes",
        when: () => true,
        why: "the restore waits as long as the timeout says when it runs",
      },
    ],
    readsCluster:
      "updates if a removal that stopped half-way left the Felix cleanup in calico-node's place, the operator's cleanup DaemonSet, or a cleanup pod: the plan cannot read the cluster",
    source: "components/calico/felix-cleanup/restore.ts felixRestoreProvider.diff (changes, never replaces)",
  },
};
