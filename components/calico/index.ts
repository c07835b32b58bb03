/**
 * The manifest install of Calico (CalicoPolicyOnly, `calico.installer: manifest`): it turns the rendered
 * objects into typed resources, orders them (the checks and the takeover, then the namespace, CRDs, RBAC
 * and TLS material, then Typha and calico-node in the order a release change needs, then the autoscaler,
 * and the Felix cleanup on removal), and builds the `calico` output. Wiring only: an object's content
 * changes in its render function (daemonset.ts, typha.ts, rbac.ts, crds.ts, autoscaler.ts; manifest.ts
 * lists them in apply order, in the shapes of object-shapes.ts), a default in defaults.ts, a config key in
 * stacks/schema/calico.ts. Objects become Pulumi resources in typed-resources.ts and workloads.ts. The
 * output's shape is outputs.ts, its readiness fields readiness.ts, read from the cluster by
 * readiness-read.ts. The operator install is operator/, the enforcement probe probe/.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { createStartupTaintRemover, removerObjectList } from "../startup-taint";
import { autoscalerObjectList } from "./autoscaler";
import {
  DEFAULT_AUTOSCALER_REGISTRY,
  DEFAULT_CALICO_NAMESPACE,
  DEFAULT_CALICO_REGISTRY,
  DEFAULT_CALICO_VERSION,
} from "./defaults";
import {
  childResourceName,
  renderCalicoObjectGroups,
  renderCalicoObjects,
  type CalicoSettings,
} from "./manifest";
import { statusOutputs } from "./readiness";
import { liveCalicoStatus } from "./readiness-read";
import { typhaReplicas } from "./typha";
import { createTyphaCertificates } from "./certificates";
import { earliestExpiry } from "./certificate-expiry";
import { DEFAULT_MAX_UNAVAILABLE, type MaxUnavailable } from "./rollout";
import { DEFAULT_FELIX, type FelixSettings } from "./felix-settings";
import { CA_KEY, CERT_KEY, PRIVATE_KEY_KEY } from "./typha-tls";
import type { CalicoObject } from "./object-shapes";
import { createCrds, createObject, readinessTimeouts, takeoverOf } from "./typed-resources";
import { type CalicoProbeArgs, fingerprint, probeBaseObjects, probeOutputs } from "./probe";
import type { CalicoOutputs } from "./outputs";
import { ADOPT_FIELD_MANAGER } from "./takeover";
import { TyphaRetirement } from "./takeover/typha-retirement";
import { lineCheckOf } from "./line-check";
import { installCheckOf } from "./install-check";
import { createTyphaService, orderOf, typhaDeployment, withTemplateAnnotation } from "./workloads";
import { CLEANUP_TIMEOUT_MINUTES, FelixCleanup } from "./felix-cleanup";
import { FelixRestore } from "./felix-cleanup/restore";
import { refsOf, removalMarkerOf } from "./removal-marker";
import { CALICO_NODE, CALICO_TYPHA, STANDARD_TYPHA, TAKEOVER_TYPHA } from "./names";
import { type ClusterAccess, crdProvider } from "../cluster/provider";
import type { AfterCalico } from "../kubernetes/after-calico";

export { isDaemonSetReady } from "./readiness";
export { renderCalicoObjects, type CalicoSettings } from "./manifest";

export interface CalicoPolicyOnlyArgs {
  /**
   * Provider of the target cluster; every object is created through it, except the CRDs unless adopting:
   * they outlive the stack (retained on delete), so they go through a provider of the same cluster that
   * upserts (`<name>-crds`, components/cluster/provider.ts crdProvider), and a stack deployed again after
   * `pulumi destroy` takes them back instead of failing with AlreadyExists.
   */
  provider: k8s.Provider;
  /**
   * Namespace of calico-node and Typha, created unless built in (kube-system, default). A deployed stack
   * moves it only by a reinstall in two updates (stacks/previous.ts): a change replaces those objects,
   * creating the new ones first. @default "kube-system"
   */
  namespace?: string;
  /**
   * Exact Calico release (vX.Y.Z of a supported line). A patch bump changes only the images (a rolling
   * update); a new line may add CRDs. @default "v3.31.7" (DEFAULT_CALICO_VERSION)
   */
  version?: string;
  /**
   * The Calico release the deployed install runs (the stack's last `calico.version` output), undefined for
   * a first install. From it to `version`, Typha or calico-node rolls first, whichever keeps every Felix
   * connected (./rollout-order.ts): the other waits for its rollout. A change no order can make throws;
   * the stack refuses it first (stacks/calico-rollout.ts).
   */
  deployedVersion?: string;
  /** Registry of the `node` and `typha` images; changing it rolls both workloads. @default "quay.io/calico" */
  registry?: string;
  /** Registry of the cluster-proportional-autoscaler image. @default "registry.k8s.io/cpa" */
  autoscalerRegistry?: string;
  /** Registry of the startup taint remover's kubectl image. @default "registry.k8s.io" */
  startupTaintRegistry?: string;
  /**
   * The node groups. Every Calico object waits for them, so the DaemonSet's readiness await sees real
   * nodes (with none, "ready" is instant and proves nothing), and `pulumi destroy` removes Calico first.
   */
  nodes: pulumi.Resource[];
  /**
   * Nodes that exist when Calico is created (the node groups' desiredSize summed): Typha starts with the
   * replicas the autoscaler's ladder gives them, never more (Typha needs a node per replica). After
   * creation the autoscaler owns the count; changing this changes nothing on a running cluster.
   */
  initialNodes: number;
  /**
   * The fewest nodes the cluster keeps (an autoscaler never goes below): from two, a Typha rollout
   * starts each new replica before an old one stops (typha.ts typhaRollingUpdate). @default 1
   */
  minNodes?: number;
  /** calico-node pods replaced at once in a rollout: a count or a percentage. @default "10%" */
  maxUnavailable?: MaxUnavailable;
  /** `calico.felix`: Felix's settings in calico-node's environment (./felix-settings.ts). */
  felix?: FelixSettings;
  /**
   * Minutes `pulumi up` waits for Calico's workloads to become ready before it fails; the stack derives it
   * from the rollout estimate (rollout.ts) unless configured.
   */
  readinessTimeoutMinutes: number;
  /** Minutes the Felix cleanup waits for every node on removal. @default 10 (CLEANUP_TIMEOUT_MINUTES) */
  cleanupTimeoutMinutes?: number;
  /**
   * The enforcement probe (./probe), run once calico-node is ready; undefined turns it off. Its Jobs run
   * again whenever Calico's release, registry or install mode changes, or `nodes` (a description of the
   * node groups) does.
   */
  probe?: CalicoProbeArgs;
  /** What must follow calico-node's readiness, before the probe (components/kubernetes/after-calico.ts). */
  afterCalico?: AfterCalico;
  /**
   * How `provider` reaches the cluster: for the CRDs' provider, for the takeover step (./takeover), which
   * runs before any object is applied, and for reading calico-node's and Typha's status in every `up`.
   */
  access: ClusterAccess;
  /**
   * `calico.adopt`: Calico's objects that exist (applied with kubectl) are taken over: the step hands the
   * fields kubectl owns in them to the field manager every object is then applied with (through a
   * `provider` that upserts), so the old manifest's leftovers go. Otherwise the step checks only the
   * CRDs: those that exist must be this program's, from an earlier deployment. @default false
   */
  adopt?: boolean;
}

type Options = pulumi.CustomResourceOptions;

/**
 * Calico in policy-only mode beside the AWS VPC CNI: Felix (calico-node) on every Linux EC2 node,
 * Typha in front of the API server, and the CRDs and RBAC they need. Create it after the node groups
 * (pass them in `dependsOn`): with no nodes the DaemonSet is trivially "ready".
 */
export class CalicoPolicyOnly extends pulumi.ComponentResource {
  /** The `calico` output: "manifest", the DaemonSet's and Typha's status, the probe's proof (./outputs.ts). */
  readonly outputs: CalicoOutputs;

  constructor(name: string, args: CalicoPolicyOnlyArgs, opts?: pulumi.ComponentResourceOptions) {
    super("eks-calico:calico:PolicyOnly", name, {}, opts);
    const settings: CalicoSettings = {
      namespace: args.namespace ?? DEFAULT_CALICO_NAMESPACE,
      version: args.version ?? DEFAULT_CALICO_VERSION,
      registry: args.registry ?? DEFAULT_CALICO_REGISTRY,
      autoscalerRegistry: args.autoscalerRegistry ?? DEFAULT_AUTOSCALER_REGISTRY,
      initialNodes: args.initialNodes,
      minNodes: args.minNodes ?? 1,
      maxUnavailable: args.maxUnavailable ?? DEFAULT_MAX_UNAVAILABLE,
      felix: args.felix ?? DEFAULT_FELIX,
      fieldManager: args.adopt ? ADOPT_FIELD_MANAGER : undefined,
      // Beside the old manifest's Typha until calico-node has rolled out (takeover/typha-retirement.ts).
      typha: args.adopt ? TAKEOVER_TYPHA : STANDARD_TYPHA,
    };
    const objects = renderCalicoObjectGroups(settings);
    const all = renderCalicoObjects(settings);
    // Every object waits for the nodes and for the takeover of what exists: every object when adopting,
    // else the CRDs, which an earlier deployment of the stack may have left.
    const taken = args.adopt ? all : objects.crds;
    // Before any object, the takeover included: the line must enforce every policy the cluster holds,
    // and no other install's calico-node may run (./install-check.ts).
    const checks = [
      lineCheckOf(name, this, args.access, settings.version, "manifest"),
      installCheckOf(name, this, args.access, {
        installer: "manifest",
        namespace: settings.namespace,
        adopt: args.adopt ?? false,
        objects: refsOf([
          ...all.filter((object) => object.kind !== "CustomResourceDefinition"),
          ...removerObjectList(settings.namespace),
          ...probeBaseObjects(args.probe),
        ]),
      }),
    ];
    const takeover = takeoverOf(name, { parent: this, dependsOn: checks }, args, taken, objects.crds);
    const nodes = [...args.nodes, ...checks, takeover];
    const base: Options = { parent: this, provider: args.provider, dependsOn: nodes };
    const timeouts = readinessTimeouts(args.readinessTimeoutMinutes);

    // Namespace, kinds and permissions first; workloads after them, all after the nodes.
    const namespace = objects.namespace
      ? [new k8s.core.v1.Namespace(childResourceName(name, objects.namespace), objects.namespace, base)]
      : [];
    // The CRDs outlive a destroyed stack: a provider that upserts takes them back on the next `up`.
    const crdsProvider = args.adopt
      ? args.provider
      : crdProvider(`${name}-crds`, args.access, { parent: this });
    const crds = createCrds(name, objects.crds, { ...base, provider: crdsProvider }, takeover.schemas);
    // Namespaced objects wait for their namespace; cluster-scoped objects do not need it.
    const inNamespace: Options = { ...base, dependsOn: [...nodes, ...namespace] };
    const scoped = (object: CalicoObject): Options => ("namespace" in object.metadata ? inNamespace : base);
    // Each workload's ServiceAccount, ClusterRole and binding are applied just before the workload: on a
    // line change the new release's role drops kinds the old one reads (rbac.ts), so the workload that
    // rolls second keeps its old role while the first rolls. The rest (tier getter, aws-node's patcher)
    // comes first.
    const ownRbac = (workload: string) => objects.rbac.filter((object) => object.metadata.name === workload);
    const createRbac = (list: readonly CalicoObject[], first: pulumi.Resource[]) =>
      list.map((object) =>
        createObject(childResourceName(name, object), object, {
          ...base,
          dependsOn: [...nodes, ...("namespace" in object.metadata ? namespace : []), ...first],
        }),
      );
    const workloads: readonly string[] = [CALICO_NODE, CALICO_TYPHA];
    const rbac = createRbac(
      objects.rbac.filter((object) => !workloads.includes(object.metadata.name)),
      [],
    );
    // Typha's CA and certificates, delivered to both workloads as a ConfigMap and two Secrets.
    const certificates = createTyphaCertificates(name, this);
    const tlsObjects = [
      new k8s.core.v1.ConfigMap(
        childResourceName(name, objects.tls.ca),
        { ...objects.tls.ca, data: { [CA_KEY]: certificates.caCert } },
        inNamespace,
      ),
      ...(["server", "client"] as const).map(
        (side) =>
          new k8s.core.v1.Secret(
            childResourceName(name, objects.tls[side]),
            {
              ...objects.tls[side],
              stringData: {
                [CERT_KEY]: certificates[side].cert,
                [PRIVATE_KEY_KEY]: certificates[side].key,
              },
            },
            inNamespace,
          ),
      ),
    ];
    const foundations = [...nodes, ...namespace, ...crds, ...rbac, ...tlsObjects];
    // Takes the startup taint off each node once calico-node is Ready there (components/startup-taint).
    const remover = createStartupTaintRemover(
      name,
      settings.namespace,
      { cluster: base, namespaced: inNamespace },
      { registry: args.startupTaintRegistry, fieldManager: settings.fieldManager },
    );
    const order = orderOf(args.deployedVersion, settings.version);
    const typha = createTyphaService(name, objects.typha, inNamespace);
    // Felix finds Typha through its Service. Which workload rolls first keeps every Felix connected: Typha
    // (Felix needs one to be ready; a first install), or calico-node when the new Typha would refuse the
    // running Felix. Not skipAwait: `pulumi up` fails with the rollout state if a workload is not ready
    // within the timeout, and the second waits for the first's rollout.
    const renderedNode = withTemplateAnnotation(objects.node, certificates.client.validUntil);
    const createNode = (first: pulumi.Resource[]) => {
      const nodeAfter = [...foundations, typha.service, ...first, ...createRbac(ownRbac(CALICO_NODE), first)];
      // A removal that stopped half-way left calico-node running the Felix cleanup: put back what is
      // rendered before calico-node is applied or read (./felix-cleanup/restore.ts).
      const felixRestore = new FelixRestore(
        `${name}-felix-restore`,
        {
          kubeconfig: args.access.kubeconfig,
          context: args.access.context,
          namespace: settings.namespace,
          daemonSet: renderedNode,
          timeoutMinutes: args.readinessTimeoutMinutes,
        },
        { parent: this, dependsOn: nodeAfter },
      );
      return new k8s.apps.v1.DaemonSet(childResourceName(name, objects.node), renderedNode, {
        ...base,
        dependsOn: [...nodeAfter, felixRestore],
        customTimeouts: timeouts,
      });
    };
    const createTyphaDeployment = (first: pulumi.Resource[]) =>
      typhaDeployment(
        name,
        withTemplateAnnotation(objects.typha.deployment, certificates.server.validUntil),
        {
          ...inNamespace,
          dependsOn: [...foundations, ...first, ...createRbac(ownRbac(CALICO_TYPHA), first)],
          customTimeouts: timeouts,
        },
      );
    let node: k8s.apps.v1.DaemonSet;
    let deployment: k8s.apps.v1.Deployment;
    if (order === "typha-first") {
      deployment = createTyphaDeployment([]);
      node = createNode([deployment]);
    } else {
      node = createNode([]);
      deployment = createTyphaDeployment([node]);
    }
    // What follows Calico waits for the workload that rolls last.
    const last = order === "typha-first" ? node : deployment;

    // The autoscaler's RBAC and ladder, then the autoscaler itself, once its target exists.
    const autoscalerDeployment = objects.autoscaler.deployment;
    const support = autoscalerObjectList(objects.autoscaler)
      .filter((object) => object !== autoscalerDeployment)
      .map((object) => createObject(childResourceName(name, object), object, scoped(object)));
    const autoscaler = createObject(childResourceName(name, autoscalerDeployment), autoscalerDeployment, {
      ...inNamespace,
      dependsOn: [...nodes, ...namespace, ...support, deployment],
      customTimeouts: timeouts,
    });

    if (args.adopt) {
      new TyphaRetirement(
        `${name}-typha-retirement`,
        {
          kubeconfig: args.access.kubeconfig,
          context: args.access.context,
          namespace: settings.namespace,
          calicoNode: objects.node.metadata.name,
          retired: CALICO_TYPHA,
          serving: TAKEOVER_TYPHA.name,
        },
        { parent: this, dependsOn: [node] },
      );
    }

    // calico-node and Typha as the cluster reports them, read in every `up` once calico-node is applied
    // or found unchanged (./readiness-read.ts). Not the DaemonSet's outputs: those are what the provider saw
    // at its last change. Typha's own would be worse: pulumi-kubernetes returns as soon as the new
    // ReplicaSet's pods are ready, which can be before the Deployment controller has counted them
    // (provider/pkg/await/deployment.go, v4.25.0: checkReplicaSetStatus, then the last Deployment event).
    const live = liveCalicoStatus(args.access, last.status, {
      calicoNode: { namespace: settings.namespace, name: objects.node.metadata.name },
      typha: {
        namespace: settings.namespace,
        name: objects.typha.deployment.metadata.name,
      },
      cleanupNamespace: settings.namespace,
    });

    // Proof that policy is enforced, once calico-node is ready on every node.
    const followers =
      args.afterCalico?.({
        resources: [last],
        calicoNode: { namespace: settings.namespace, name: objects.node.metadata.name },
      }) ?? [];
    const probe = probeOutputs(name, this, {
      provider: args.provider,
      // Its pods wait for the startup taint to go: after the remover's DaemonSet is ready.
      after: [last, ...remover, ...followers],
      probe: args.probe,
      calico: {
        calicoVersion: settings.version,
        calicoRegistry: settings.registry,
        installer: "manifest",
        // What calico-node runs with: its pod template, the Typha TLS material it and Typha load (a
        // renewal reissues both certificates), and whether the objects were taken over.
        calicoNode: fingerprint(objects.node.spec.template),
        typhaTls: pulumi.all([certificates.server.validUntil, certificates.client.validUntil]),
        adopt: args.adopt ?? false,
      },
    });
    // Removing calico-node removes Felix's rules from every node first: deleted before the DaemonSet, it
    // turns calico-node into a cleanup and waits for every node (./felix-cleanup). After the probe too, so
    // a removal held in the cleanup has deleted nothing: the probe goes with the install's objects.
    const felixCleanup = new FelixCleanup(
      `${name}-felix-cleanup`,
      {
        kubeconfig: args.access.kubeconfig,
        context: args.access.context,
        namespace: settings.namespace,
        calicoNode: objects.node.metadata.name,
        timeoutMinutes: args.cleanupTimeoutMinutes ?? CLEANUP_TIMEOUT_MINUTES,
      },
      { parent: this, dependsOn: [node, ...probe.resources] },
    );
    // Deleted before anything else of the install: a removal that stops part-way is known (./removal-marker.ts).
    removalMarkerOf(name, this, args.access, settings.namespace, [
      node,
      deployment,
      typha.disruptionBudget,
      autoscaler,
      felixCleanup,
      ...remover,
      ...probe.resources,
    ]);
    this.outputs = {
      installer: pulumi.output("manifest"),
      namespace: pulumi.output(settings.namespace),
      version: pulumi.output(settings.version),
      ...statusOutputs("manifest", live),
      typhaReplicas: typhaReplicas(settings.initialNodes),
      // The next update warns from it once it is under 30 days away (stacks/certificate-notice.ts).
      typhaCertificatesExpire: pulumi
        .all([certificates.caValidUntil, certificates.server.validUntil, certificates.client.validUntil])
        .apply(earliestExpiry),
      policyEnforced: probe.policyEnforced,
      probe: probe.probe,
    };
    this.registerOutputs(this.outputs);
  }
}
