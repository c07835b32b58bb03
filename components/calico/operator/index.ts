/**
 * Calico installed by the Tigera operator: the operator (its namespace, RBAC and Deployment, which creates
 * and updates its own CRDs), the Installation `default` for EKS on the VPC CNI, and as configured the
 * Calico API server, Goldmane and Whisker. `pulumi up` waits until the operator reports the requested
 * release Ready, applies the startup taint's remover, then reads calico-system/calico-node for the same
 * readiness outputs as the manifest install.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { operatorTyphaReplicas, statusOutputs } from "../readiness";
import { liveCalicoStatus } from "../readiness-read";
import type { ClusterAccess } from "../../cluster/provider";
import type { MaxUnavailable } from "../rollout";
import { type CalicoProbeArgs, probeBaseObjects, probeOutputs } from "../probe";
import type { CalicoOutputs } from "../outputs";
import {
  renderApiServer,
  renderInstallation,
  renderObservability,
  type OperatorCustomResource,
} from "./custom-resources";
import { operatorObjectName, renderOperatorObjects } from "./objects";
import { requireOperatorVersion } from "./releases";
import { CALICO_SYSTEM_NAMESPACE } from "./settings";
import { CLEANUP_DAEMONSET, CLEANUP_TIMEOUT_MINUTES, FelixCleanup } from "../felix-cleanup";
import { FelixRestore } from "../felix-cleanup/restore";
import { CALICO_NODE, CALICO_NODE_IMAGE } from "../names";
import type { AfterCalico } from "../../kubernetes/after-calico";
import { createObject, readinessTimeouts } from "../typed-resources";
import { lineCheckOf } from "../line-check";
import { installCheckOf } from "../install-check";
import { refsOf, removalMarkerOf } from "../removal-marker";
import { createStartupTaintRemover, removerObjectList } from "../../startup-taint";

/** Where the cleanup DaemonSet runs after the operator is gone: a namespace that always exists. */
const FELIX_CLEANUP_NAMESPACE = "kube-system";

export interface CalicoOperatorArgs {
  /** Provider of the target cluster; every object is created through it. */
  provider: k8s.Provider;
  /** Exact Calico release; it picks the operator release (./releases.ts), which installs it. */
  version: string;
  /** Registry prefix of Calico's images, with a path ("quay.io/calico"). */
  registry: string;
  /** Registry prefix of the operator image ("quay.io/tigera"). */
  operatorRegistry: string;
  /** The node groups: the operator and Calico start after them and are removed before them. */
  nodes: pulumi.Resource[];
  /** Nodes that exist when Calico is created: Typha's first size by the operator's own ladder. */
  initialNodes: number;
  /** calico-node pods the operator replaces at once (Installation `nodeUpdateStrategy`). */
  maxUnavailable: MaxUnavailable;
  /** The Calico API server (APIServer `default`), awaited Ready. */
  apiServer: boolean;
  /** Goldmane and Whisker, never awaited (they report no status). */
  observability: boolean;
  /** Minutes `pulumi up` waits for the operator and for the Installation to be Ready before failing. */
  readinessTimeoutMinutes: number;
  /** Minutes the Felix cleanup waits for every node on destroy. @default 10 (CLEANUP_TIMEOUT_MINUTES) */
  cleanupTimeoutMinutes?: number;
  /** The enforcement probe, run once the Installation is Ready; undefined turns it off. */
  probe?: CalicoProbeArgs;
  /** What must follow the Installation's readiness, before the probe (components/kubernetes/after-calico.ts). */
  afterCalico?: AfterCalico;
  /** How `provider` reaches the cluster: for reading calico-node's, Typha's and the operator's status. */
  access: ClusterAccess;
  /** Registry of the startup taint remover's kubectl image. @default "registry.k8s.io" */
  startupTaintRegistry?: string;
}

type Options = pulumi.CustomResourceOptions;

/**
 * An operator custom resource with its `status` as an output: a CustomResource has an output for each key
 * of its args, and an unset one is sent as nothing (so applied as nothing) but resolves to what the
 * provider reports of the object once it is applied.
 */
class OperatorResource extends k8s.apiextensions.CustomResource {
  declare readonly status: pulumi.Output<unknown>;
}

export class CalicoOperator extends pulumi.ComponentResource {
  /** The `calico` output: "operator", what the operator runs and reports, the probe's proof (../outputs.ts). */
  readonly outputs: CalicoOutputs;

  constructor(name: string, args: CalicoOperatorArgs, opts?: pulumi.ComponentResourceOptions) {
    super("eks-calico:calico:Operator", name, {}, opts);
    const operatorVersion = requireOperatorVersion(args.version);
    const objects = renderOperatorObjects({
      registry: args.operatorRegistry,
      operatorVersion,
      calicoVersion: args.version,
    });
    const installationObject = renderInstallation({
      version: args.version,
      registry: args.registry,
      maxUnavailable: args.maxUnavailable,
    });
    const extras = [
      ...(args.apiServer ? [renderApiServer()] : []),
      ...(args.observability ? renderObservability() : []),
    ];
    const installCheck = installCheckOf(name, this, args.access, {
      installer: "operator",
      namespace: CALICO_SYSTEM_NAMESPACE,
      adopt: false,
      objects: refsOf([
        objects.namespace,
        ...objects.rbac,
        objects.deployment,
        installationObject,
        ...extras,
        ...removerObjectList(CALICO_SYSTEM_NAMESPACE),
        ...probeBaseObjects(args.probe),
      ]),
    });
    // After the node groups, the line check (../line-check.ts) and the check that no manifest install of
    // this program runs (../install-check.ts); on destroy removed before the node groups.
    const first = [
      ...args.nodes,
      lineCheckOf(name, this, args.access, args.version, "operator"),
      installCheck,
    ];
    const base: Options = { parent: this, provider: args.provider, dependsOn: first };
    const timeouts = readinessTimeouts(args.readinessTimeoutMinutes);

    // The operator's namespace, then its permissions, then the operator, which creates its CRDs at start.
    const namespace = new k8s.core.v1.Namespace(
      operatorObjectName(name, objects.namespace),
      objects.namespace,
      base,
    );
    const inNamespace: Options = { ...base, dependsOn: [...first, namespace] };
    const permissions = objects.rbac.map((object) =>
      createObject(
        operatorObjectName(name, object),
        object,
        "namespace" in object.metadata ? inNamespace : base,
      ),
    );
    const operator = new k8s.apps.v1.Deployment(
      operatorObjectName(name, objects.deployment),
      objects.deployment,
      {
        ...inNamespace,
        dependsOn: [...first, namespace, ...permissions],
        customTimeouts: timeouts,
      },
    );

    // The custom resources depend on the running operator: created after it, and on destroy deleted
    // (their finalizers run by the operator) before it goes.
    const custom = (
      resource: OperatorCustomResource,
      after: pulumi.Resource[],
      timeout?: pulumi.CustomTimeouts,
    ) =>
      new OperatorResource(
        operatorObjectName(name, resource),
        { ...resource, status: undefined },
        {
          ...base,
          dependsOn: [...first, operator, ...after],
          ...(timeout === undefined ? {} : { customTimeouts: timeout }),
        },
      );
    // Felix's rules leave with calico-node: the Installation depends on the cleanup step, so Pulumi
    // deletes the step after it, once the operator has removed calico-node (../felix-cleanup).
    const felixCleanup = new FelixCleanup(
      `${name}-felix-cleanup`,
      {
        kubeconfig: args.access.kubeconfig,
        context: args.access.context,
        namespace: FELIX_CLEANUP_NAMESPACE,
        image: `${args.registry}/${CALICO_NODE_IMAGE}:${args.version}`,
        operatorCalicoNode: `${CALICO_SYSTEM_NAMESPACE}/${CALICO_NODE}`,
        timeoutMinutes: args.cleanupTimeoutMinutes ?? CLEANUP_TIMEOUT_MINUTES,
      },
      // After the install check, which goes last: a removal stopped in the cleanup keeps its marker.
      { parent: this, dependsOn: [...args.nodes, installCheck] },
    );
    // A removal that stopped half-way left the cleanup DaemonSet: it goes before the operator runs Felix
    // again (../felix-cleanup/restore.ts).
    const felixRestore = new FelixRestore(
      `${name}-felix-restore`,
      {
        kubeconfig: args.access.kubeconfig,
        context: args.access.context,
        namespace: FELIX_CLEANUP_NAMESPACE,
        cleanupDaemonSet: CLEANUP_DAEMONSET,
        timeoutMinutes: args.readinessTimeoutMinutes,
      },
      { parent: this, dependsOn: [installCheck] },
    );
    const installation = custom(installationObject, [felixCleanup, felixRestore], timeouts);
    // The API server is awaited Ready; Goldmane and Whisker report no status.
    const others = extras.map((resource) =>
      custom(resource, [installation], resource.kind === "APIServer" ? timeouts : undefined),
    );

    // What the operator runs and reports, read in every `up` once the Installation is applied or found
    // unchanged (../readiness-read.ts). It follows the Installation's status, which the provider reports
    // only once it has applied the object (and the offline engine never).
    const live = liveCalicoStatus(args.access, installation.status, {
      calicoNode: { namespace: CALICO_SYSTEM_NAMESPACE, name: CALICO_NODE },
      typha: { namespace: CALICO_SYSTEM_NAMESPACE, name: "calico-typha" },
      tigeraStatus: "calico",
      cleanupNamespace: FELIX_CLEANUP_NAMESPACE,
    });

    // Takes the startup taint off each node once calico-node is Ready there (components/startup-taint),
    // beside it in calico-system, which the operator creates: applied once the Installation is Ready,
    // which the taint does not hold up (CONTROL_PLANE_TOLERATIONS).
    const afterInstallation: Options = { ...base, dependsOn: [...first, installation] };
    const remover = createStartupTaintRemover(
      name,
      CALICO_SYSTEM_NAMESPACE,
      { cluster: afterInstallation, namespaced: afterInstallation },
      { registry: args.startupTaintRegistry },
    );

    const followers =
      args.afterCalico?.({
        resources: [installation],
        calicoNode: { namespace: CALICO_SYSTEM_NAMESPACE, name: CALICO_NODE },
      }) ?? [];
    const probe = probeOutputs(name, this, {
      provider: args.provider,
      // Its pods wait for the taint to go: after the remover's DaemonSet is ready.
      after: [installation, ...remover, ...followers],
      probe: args.probe,
      calico: { calicoVersion: args.version, calicoRegistry: args.registry, installer: "operator" },
    });
    // Deleted before anything else of the install: a removal that stops part-way is known
    // (../removal-marker.ts).
    removalMarkerOf(name, this, args.access, CALICO_SYSTEM_NAMESPACE, [
      installation,
      ...others,
      ...remover,
      ...probe.resources,
    ]);
    this.outputs = {
      installer: pulumi.output("operator"),
      namespace: pulumi.output(CALICO_SYSTEM_NAMESPACE),
      version: pulumi.output(args.version),
      ...statusOutputs("operator", live),
      typhaReplicas: operatorTyphaReplicas(args.initialNodes),
      // The operator renews Typha's certificates itself (../outputs.ts).
      typhaCertificatesExpire: pulumi.output(null),
      policyEnforced: probe.policyEnforced,
      probe: probe.probe,
    };
    this.registerOutputs(this.outputs);
  }
}
