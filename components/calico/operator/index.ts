/**
 * Calico installed by the Tigera operator: the operator (its namespace, RBAC and Deployment, which creates
 * and updates its own CRDs), the Installation `default` for EKS on the VPC CNI, and as configured the
 * Calico API server, Goldmane and Whisker. `pulumi up` waits until the operator reports the requested
 * release Ready, then reads calico-system/calico-node for the same readiness outputs as the manifest
 * install.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { countOutputs, isDaemonSetReady, readyReplicas, type DaemonSetCounts } from "../status";
import type { MaxUnavailable } from "../rollout";
import { type CalicoProbeArgs, type ProbeReport, probeOutputs } from "../probe";
import { type CalicoInstall, calicoOutputs } from "../outputs";
import {
  renderApiServer,
  renderInstallation,
  renderObservability,
  type OperatorCustomResource,
} from "./custom-resources";
import { operatorObjectName, renderOperatorObjects } from "./objects";
import { requireOperatorVersion } from "./releases";
import { CALICO_SYSTEM_NAMESPACE } from "./settings";
import type { AfterCalico } from "../../kubernetes/after-calico";
import { calicoAvailable, operatorTyphaReplicas, type TigeraStatus } from "./status";
import { createObject, readinessTimeouts } from "../resources";

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
  /** The enforcement probe, run once the Installation is Ready; undefined turns it off. */
  probe?: CalicoProbeArgs;
  /** What must follow the Installation's readiness, before the probe (components/kubernetes/after-calico.ts). */
  afterCalico?: AfterCalico;
}

type Options = pulumi.CustomResourceOptions;

/** A read of a TigeraStatus: `status` is an output because the read names it among its properties. */
class TigeraStatusRead extends k8s.apiextensions.CustomResource {
  declare readonly status: pulumi.Output<TigeraStatus["status"]>;
}

export class CalicoOperator extends pulumi.ComponentResource implements CalicoInstall {
  readonly installer: pulumi.Output<string>;
  readonly namespace: pulumi.Output<string>;
  readonly version: pulumi.Output<string>;
  readonly desired: pulumi.Output<number>;
  readonly current: pulumi.Output<number>;
  readonly updated: pulumi.Output<number>;
  readonly ready: pulumi.Output<number>;
  readonly available: pulumi.Output<number>;
  /** calico-node ready on every desired node (at least one) and TigeraStatus `calico` Available. */
  readonly isReady: pulumi.Output<boolean>;
  readonly typhaReadyReplicas: pulumi.Output<number>;
  /** Typha replicas the operator runs for `initialNodes`; it adjusts them as nodes come and go. */
  readonly typhaReplicas: number;
  readonly policyEnforced: pulumi.Output<boolean>;
  readonly probe: pulumi.Output<ProbeReport | undefined>;

  constructor(name: string, args: CalicoOperatorArgs, opts?: pulumi.ComponentResourceOptions) {
    super("eks-calico:calico:Operator", name, {}, opts);
    const operatorVersion = requireOperatorVersion(args.version);
    const objects = renderOperatorObjects({
      registry: args.operatorRegistry,
      operatorVersion,
      calicoVersion: args.version,
    });
    const base: Options = { parent: this, provider: args.provider, dependsOn: args.nodes };
    const timeouts = readinessTimeouts(args.readinessTimeoutMinutes);

    // The operator's namespace, then its permissions, then the operator, which creates its CRDs at start.
    const namespace = new k8s.core.v1.Namespace(
      operatorObjectName(name, objects.namespace),
      objects.namespace,
      base,
    );
    const inNamespace: Options = { ...base, dependsOn: [...args.nodes, namespace] };
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
        dependsOn: [...args.nodes, namespace, ...permissions],
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
      new k8s.apiextensions.CustomResource(operatorObjectName(name, resource), resource, {
        ...base,
        dependsOn: [...args.nodes, operator, ...after],
        ...(timeout === undefined ? {} : { customTimeouts: timeout }),
      });
    const installation = custom(
      renderInstallation({
        version: args.version,
        registry: args.registry,
        maxUnavailable: args.maxUnavailable,
      }),
      [],
      timeouts,
    );
    if (args.apiServer) custom(renderApiServer(), [installation], timeouts);
    if (args.observability) renderObservability().forEach((resource) => custom(resource, [installation]));

    // Read back what the operator reports, after the wait. The ids depend on the Installation's, so a
    // preview that creates it reads nothing (the objects do not exist yet) and shows the outputs unknown.
    const afterInstall = (id: string) => installation.id.apply(() => id);
    const readOptions: pulumi.CustomResourceOptions = {
      parent: this,
      provider: args.provider,
      dependsOn: [installation],
    };
    const calicoNode = k8s.apps.v1.DaemonSet.get(
      `${name}-calico-node`,
      afterInstall(`${CALICO_SYSTEM_NAMESPACE}/calico-node`),
      readOptions,
    );
    const typha = k8s.apps.v1.Deployment.get(
      `${name}-calico-typha`,
      afterInstall(`${CALICO_SYSTEM_NAMESPACE}/calico-typha`),
      readOptions,
    );
    const tigeraStatus = new TigeraStatusRead(
      `${name}-tigera-status`,
      { apiVersion: "operator.tigera.io/v1", kind: "TigeraStatus", status: undefined },
      { ...readOptions, id: afterInstall("calico") },
    );

    const status: pulumi.Output<DaemonSetCounts | undefined> = calicoNode.status;
    this.installer = pulumi.output("operator");
    this.namespace = pulumi.output(CALICO_SYSTEM_NAMESPACE);
    this.version = pulumi.output(args.version);
    ({
      desired: this.desired,
      current: this.current,
      updated: this.updated,
      ready: this.ready,
      available: this.available,
    } = countOutputs(status));
    this.isReady = pulumi
      .all([status, tigeraStatus.status])
      .apply(([s, t]) => isDaemonSetReady(s) && calicoAvailable(t));
    this.typhaReadyReplicas = readyReplicas(typha.status);
    this.typhaReplicas = operatorTyphaReplicas(args.initialNodes);

    const followers =
      args.afterCalico?.({
        resources: [installation],
        calicoNode: { namespace: CALICO_SYSTEM_NAMESPACE, name: "calico-node" },
      }) ?? [];
    ({ policyEnforced: this.policyEnforced, probe: this.probe } = probeOutputs(name, this, {
      provider: args.provider,
      after: [installation, ...followers],
      probe: args.probe,
      calico: { calicoVersion: args.version, calicoRegistry: args.registry, installer: "operator" },
    }));

    this.registerOutputs(calicoOutputs(this));
  }
}
