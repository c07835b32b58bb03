/**
 * The install check: one Calico install on the nodes at a time, judged from the cluster. The stack's own
 * guards (stacks/previous.ts) know only what the last successful update exported: after a failed first
 * `up`, a failed final status read, a state restored without the `calico` output, or `calico.adopt` onto a
 * manifest in another namespace, a change of `calico.namespace` or `calico.installer` would create the new
 * calico-node and Typha while the old ones run. So before any Calico object changes, the step lists the
 * cluster's calico-node DaemonSets and refuses while one of another install runs, naming it.
 *
 * It reads in the dynamic provider's `check`, the one method the engine calls for every registered
 * resource in every preview and update, whether the step is new (a first deployment with `calico.adopt`, an
 * installer switch, which puts the step under the other component) or in the state: `diff` runs only for
 * the latter, `create` only in `up`. One list of DaemonSets by name per preview; what it finds never
 * changes the step (its diff compares only its inputs), so `pulumi preview --expect-no-changes` and the
 * offline diff are unaffected. A cluster it cannot read fails the preview, naming the request, rather than
 * passing unread; a kubeconfig not known yet (a cluster this update creates) has nothing to find.
 * Credentials that may not list DaemonSets (a read-only preview role with no access entry: 401, or one
 * without `list`: 403) leave the check to `up`, whose deploy role reads: every pull request's preview of
 * a production stack would fail otherwise (docs/access.md, "The preview role").
 *
 * The same check refuses an `up` after a removal that stopped part-way, while objects of the state are
 * missing from the cluster (./removal-marker.ts); its refresh and its delete are that marker's.
 */
import * as pulumi from "@pulumi/pulumi";
import { unknownValue } from "@pulumi/pulumi/runtime/rpc";
import type { ClusterAccess } from "../cluster/provider";
import { credentialsOf, isNotAllowed, kubeRequest } from "../kubernetes/client";
import { COMMON_LABELS } from "./labels";
import { CALICO_NODE } from "./names";
import { OPERATOR_API_VERSION } from "./operator/custom-resources";
import type { Installer } from "./operator/settings";
import { missingObjects, readMarker, removalRefusal, unmarkRemoval } from "./removal-marker";
import type { ObjectRef } from "./takeover/run";

/** The dynamic resource's type token, `pulumi-nodejs:dynamic/<module>:<type>` (@pulumi/pulumi dynamic). */
export const INSTALL_CHECK_TYPE = "pulumi-nodejs:dynamic/calico:InstallCheck";

/**
 * Why two installs cannot share the nodes. pulumi-kubernetes deletes a replaced object first only when
 * its replacement keeps both name and namespace (provider/pkg/provider/provider.go Diff, v4.25.0), so a
 * move creates, and awaits, the new calico-node and Typha while the old ones run.
 */
export const TWO_INSTALLS = [
  "Typha uses the host network: the new Typha cannot bind the port the old one holds on a node, so on a cluster with no node to spare the update fails every time",
  "where it starts, two privileged Felixes program the same chains on every node, and the ClusterRoleBindings move to the new service accounts while the old pods still run",
] as const;

/**
 * The Tigera operator's calico-node: `calico-system/calico-node` (pkg/common/common.go NodeDaemonSetName),
 * with the Installation as its controller owner (pkg/controller/utils/component.go createOrUpdateObject,
 * SetControllerReference; tigera/operator v1.40.15 and v1.42.3). Its labels tell nothing: v1.40.15 puts
 * none on the DaemonSet itself (setStandardSelectorAndLabels labels only the pod template), v1.42.3 adds
 * `app.kubernetes.io/part-of: Calico` and `managed-by: tigera-operator`; never this program's.
 */
const OPERATOR_OWNER = { apiVersion: OPERATOR_API_VERSION, kind: "Installation" } as const;

export interface InstallCheckInputs {
  readonly kubeconfig: string;
  readonly context?: string;
  /** How this install runs Calico. */
  readonly installer: Installer;
  /** Where its calico-node runs: `calico.namespace`, or calico-system with the operator. */
  readonly namespace: string;
  /** `calico.adopt`: the manifest objects in `namespace` are taken over, and only those. */
  readonly adopt: boolean;
  /** The install's objects but its CRDs (which outlive it), looked for after a stopped removal. */
  readonly objects: readonly ObjectRef[];
  /** The uid of the removal marker a `pulumi refresh` found (./removal-marker.ts): its refusal is over. */
  readonly refreshedRemoval?: string;
}

/** A DaemonSet as the list answers it: only its metadata is read. */
export interface ListedDaemonSet {
  readonly metadata: {
    readonly namespace: string;
    readonly name: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly ownerReferences?: readonly {
      apiVersion: string;
      kind: string;
      name: string;
      controller?: boolean;
    }[];
  };
}

/** A calico-node of another install: which, what it is, and the way forward. */
export interface OtherInstall {
  /** `namespace/name`. */
  readonly daemonSet: string;
  /** The config key whose value makes it another install. */
  readonly path: "calico.namespace" | "calico.installer" | "calico.adopt";
  readonly what: string;
  readonly forward: string;
}

const MOVING = 'docs/install-modes.md, "Moving Calico to another namespace"';
const SWITCHING = 'docs/install-modes.md, "Switching install mode"';

/** Whether `daemonSet` carries the labels this program puts on every object (labels.ts). */
function isThisProgram(daemonSet: ListedDaemonSet): boolean {
  const labels = daemonSet.metadata.labels ?? {};
  return Object.entries(COMMON_LABELS).every(([key, value]) => labels[key] === value);
}

/** The Installation that controls `daemonSet`, if the Tigera operator made it. */
function operatorOwner(daemonSet: ListedDaemonSet): string | undefined {
  return daemonSet.metadata.ownerReferences?.find(
    (o) =>
      o.controller === true && o.apiVersion === OPERATOR_OWNER.apiVersion && o.kind === OPERATOR_OWNER.kind,
  )?.name;
}

/**
 * What refuses this install among the cluster's calico-node DaemonSets. A manifest install refuses the
 * operator's calico-node wherever it runs, and outside its own namespace one of this program's (an earlier
 * namespace) or, with `calico.adopt`, any (adopt takes over only `calico.namespace`). The operator
 * refuses this program's manifest calico-node in any namespace: the operator cannot convert it
 * (operator/migration.ts), and deleting it after the switch would leave no Felix. Another tool's manifest
 * is left to the operator's own migration, and without adopt to the takeover step's CRD check.
 */
export function otherInstalls(
  install: InstallCheckInputs,
  found: readonly ListedDaemonSet[],
): OtherInstall[] {
  const others: OtherInstall[] = [];
  for (const daemonSet of found) {
    const { namespace, name } = daemonSet.metadata;
    const at = `${namespace}/${name}`;
    const owner = operatorOwner(daemonSet);
    if (install.installer === "operator") {
      if (!isThisProgram(daemonSet)) continue;
      others.push({
        daemonSet: at,
        path: "calico.installer",
        what: `this program's manifest install (labels ${labelText()})`,
        forward: `set calico.installer back to "manifest" and calico.namespace to ${namespace}, run \`pulumi up\` so the stack's \`calico\` output records it, then switch with calico.reinstall: true (${SWITCHING})`,
      });
    } else if (owner !== undefined) {
      others.push({
        daemonSet: at,
        path: "calico.installer",
        what: `the Tigera operator's install (controlled by Installation ${owner})`,
        forward: `keep calico.installer "operator": the operator made Calico's CRDs, and going back to "manifest" on a deployed cluster is refused (${SWITCHING})`,
      });
    } else if (namespace === install.namespace) {
      continue;
    } else if (isThisProgram(daemonSet)) {
      others.push({
        daemonSet: at,
        path: "calico.namespace",
        what: `this program's install (labels ${labelText()})`,
        forward: `set calico.namespace back to ${namespace} and run \`pulumi up\`, so the stack's \`calico\` output records the install; then move it in two updates with calico.reinstall: true (${MOVING}). If another stack installed it, remove it with that stack first`,
      });
    } else if (install.adopt) {
      others.push({
        daemonSet: at,
        path: "calico.adopt",
        what: `a manifest install that calico.adopt does not take over: it takes over only what runs in calico.namespace (${install.namespace})`,
        forward: `set calico.namespace to ${namespace} to adopt it where it runs, then move it with calico.reinstall: true (${MOVING})`,
      });
    }
  }
  return others;
}

function labelText(): string {
  return Object.entries(COMMON_LABELS)
    .map(([key, value]) => `${key}=${value}`)
    .join(", ");
}

/** The refusal: each calico-node found, why two installs cannot share the nodes, and the way forward. */
export function installRefusal(install: InstallCheckInputs, others: readonly OtherInstall[]): string {
  const where = install.installer === "operator" ? "with the Tigera operator" : `in ${install.namespace}`;
  return [
    `${others[0].path}: another Calico install runs on the nodes, and installing Calico ${where} beside it would run two at once. Two installs cannot share the nodes: ${TWO_INSTALLS.join("; ")}.`,
    "Nothing was changed; calico-node runs as before. Found:",
    ...others.map((other) => `  - DaemonSet ${other.daemonSet}: ${other.what}`),
    ...[...new Set(others.map((other) => `To go on, ${other.forward}.`))],
  ].join("\n");
}

/** The list of every DaemonSet named calico-node, in all namespaces. */
export const CALICO_NODE_LIST_PATH = `/apis/apps/v1/daemonsets?fieldSelector=${encodeURIComponent(`metadata.name=${CALICO_NODE}`)}`;

/** Whether the engine sent a value not known yet (a preview before the cluster exists). */
function unknown(inputs: InstallCheckInputs): boolean {
  return Object.values(inputs).some((value) => value === unknownValue);
}

/** Throws the refusal while another install's calico-node runs; a cluster it cannot read throws too. */
async function checkInstall(inputs: InstallCheckInputs): Promise<void> {
  if (unknown(inputs)) return;
  let found: ListedDaemonSet[];
  try {
    const credentials = credentialsOf(inputs.kubeconfig, inputs.context);
    found =
      (await kubeRequest<{ items?: ListedDaemonSet[] }>(credentials, "GET", CALICO_NODE_LIST_PATH)).items ??
      [];
  } catch (error) {
    if (isNotAllowed(error)) return;
    throw new Error(
      `calico: could not list the calico-node DaemonSets to check that no other Calico install runs (GET ${CALICO_NODE_LIST_PATH}): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const others = otherInstalls(inputs, found);
  if (others.length > 0) throw new Error(installRefusal(inputs, others));
}

/**
 * Throws the refusal while a removal that stopped part-way left objects in the state that the cluster has
 * lost (./removal-marker.ts). Only for a step in the state (`olds` has its inputs): a new one has no
 * object of this install in the state either.
 */
async function checkRemoval(olds: Partial<InstallCheckInputs>, news: InstallCheckInputs): Promise<void> {
  if (unknown(news) || olds.installer === undefined) return;
  const credentials = credentialsOf(news.kubeconfig, news.context);
  try {
    const marker = await readMarker(credentials);
    if (marker === undefined || marker.metadata.uid === olds.refreshedRemoval) return;
    const missing = await missingObjects(credentials, news.objects);
    if (missing.length > 0) throw new Error(removalRefusal(marker, missing));
  } catch (error) {
    if (!isNotAllowed(error)) throw error;
  }
}

/**
 * Its refresh: the marker's uid, if one is there, so the `up` after the refresh goes on. A cluster it
 * cannot read records nothing; it never fails the refresh.
 */
async function refreshed(props: InstallCheckInputs): Promise<InstallCheckInputs> {
  const rest: InstallCheckInputs = { ...props };
  delete (rest as { refreshedRemoval?: string }).refreshedRemoval;
  try {
    const marker = await readMarker(credentialsOf(props.kubeconfig, props.context));
    return marker === undefined ? rest : { ...rest, refreshedRemoval: marker.metadata.uid };
  } catch {
    return rest;
  }
}

/** The inputs the program sets, without the provider's code (`__provider`), which the host adds. */
const INPUT_KEYS: readonly (keyof InstallCheckInputs)[] = [
  "kubeconfig",
  "context",
  "installer",
  "namespace",
  "adopt",
];

/** Loaded from its serialized text by Pulumi's dynamic provider host: it calls only imported functions. */
export const installCheckProvider: pulumi.dynamic.ResourceProvider = {
  async check(olds: Partial<InstallCheckInputs>, news: InstallCheckInputs) {
    await checkInstall(news);
    await checkRemoval(olds, news);
    return { inputs: news };
  },
  create(inputs: InstallCheckInputs) {
    return Promise.resolve({ id: "install-check", outs: inputs });
  },
  diff(_id: string, olds: InstallCheckInputs, news: InstallCheckInputs) {
    // What the check read is no change: only the program's inputs are.
    return Promise.resolve({
      changes: INPUT_KEYS.some((key) => JSON.stringify(olds[key]) !== JSON.stringify(news[key])),
    });
  },
  update(_id: string, _olds: InstallCheckInputs, news: InstallCheckInputs) {
    return Promise.resolve({ outs: news });
  },
  async read(id: string, props: InstallCheckInputs) {
    const now = await refreshed(props);
    return { id, props: now, inputs: now };
  },
  // The last of the install to go: a removal that gets here has finished.
  delete(_id: string, props: InstallCheckInputs) {
    return unmarkRemoval(credentialsOf(props.kubeconfig, props.context));
  },
};

export interface CalicoInstallCheckArgs {
  /** The kubeconfig of the cluster (secret) and its context, as the Kubernetes provider has them. */
  readonly kubeconfig: pulumi.Input<string>;
  readonly context?: pulumi.Input<string>;
  readonly installer: Installer;
  /** Where its calico-node runs: `calico.namespace`, or calico-system with the operator. */
  readonly namespace: string;
  readonly adopt: boolean;
  readonly objects: readonly ObjectRef[];
}

export class CalicoInstallCheck extends pulumi.dynamic.Resource {
  constructor(name: string, args: CalicoInstallCheckArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      installCheckProvider,
      name,
      { ...args, kubeconfig: pulumi.secret(args.kubeconfig) },
      opts,
      "calico",
      "InstallCheck",
    );
  }
}

/** The install check on the cluster `access` reaches, a child of the install `parent`. */
export function installCheckOf(
  name: string,
  parent: pulumi.Resource,
  access: ClusterAccess,
  install: Pick<CalicoInstallCheckArgs, "installer" | "namespace" | "adopt" | "objects">,
) {
  return new CalicoInstallCheck(
    `${name}-install-check`,
    { kubeconfig: access.kubeconfig, context: access.context, ...install },
    { parent },
  );
}
