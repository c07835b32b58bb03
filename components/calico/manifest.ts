/**
 * Every Kubernetes object of the policy-only install, as plain data, in apply order:
 *   0. the namespace, unless it is one every cluster already has;
 *   1. CRDs (Calico's, then the release line's upstream policy kinds), so kinds exist before use;
 *   2. RBAC: ServiceAccounts, ClusterRoles, bindings for calico-node, Typha, the tier getter, aws-node,
 *      and the Typha TLS material (CA ConfigMap, server and client Secrets);
 *   3. Typha: Deployment, Service, PodDisruptionBudget;
 *   4. Typha's autoscaler: its RBAC, its ladder ConfigMap and its Deployment;
 *   5. the calico-node DaemonSet, last, because Felix waits for Typha and its permissions.
 * Each object's content comes from its render function; the shapes are ./object-shapes.ts, and
 * ./typed-resources.ts and ./workloads.ts turn the objects into Pulumi resources.
 */
import { type AutoscalerObjects, autoscalerObjectList, renderTyphaAutoscaler } from "./autoscaler";
import { renderCrds } from "./crds";
import { renderCalicoNode } from "./daemonset";
import { renderRbac } from "./rbac";
import {
  renderTyphaDeployment,
  renderTyphaDisruptionBudget,
  renderTyphaService,
  typhaReplicas,
} from "./typha";
import { COMMON_LABELS } from "./labels";
import { STANDARD_TYPHA, type TyphaEndpoint } from "./names";
import { ADOPT_FIELD_MANAGER, withFieldManager } from "./takeover/field-manager";
import type { MaxUnavailable } from "./rollout";
import type { FelixSettings } from "./felix-settings";
import {
  FELIX_CLIENT_SECRET,
  TYPHA_SERVER_SECRET,
  renderTlsSecret,
  renderTyphaCaConfigMap,
} from "./typha-tls";
import type {
  CalicoObject,
  ConfigMap,
  DaemonSet,
  Deployment,
  Namespace,
  PodDisruptionBudget,
  Secret,
  Service,
} from "./object-shapes";

/** Namespaces every EKS cluster has; Calico never creates (nor, on destroy, deletes) these. */
export const BUILT_IN_NAMESPACES: readonly string[] = ["kube-system", "default"];

export interface CalicoSettings {
  /** Namespace of every namespaced object. */
  namespace: string;
  /** Exact Calico release, e.g. "v3.31.7"; its line decides the CRDs and RBAC. */
  version: string;
  /** Registry prefix of the `node` and `typha` images, e.g. "quay.io/calico". */
  registry: string;
  /** Registry prefix of the cluster-proportional-autoscaler image, e.g. "registry.k8s.io/cpa". */
  autoscalerRegistry: string;
  /** Nodes that exist when Calico is created (the node groups' desired sizes summed): Typha's first size. */
  initialNodes: number;
  /** The fewest nodes the cluster keeps (minSize summed, or `minNodes`): Typha's rollout pace. */
  minNodes: number;
  /** calico-node pods replaced at once during a rollout. */
  maxUnavailable: MaxUnavailable;
  /** `calico.felix`: Felix's settings in calico-node's environment. */
  felix: FelixSettings;
  /**
   * The field manager every object names for pulumi-kubernetes (`calico.adopt`, ./takeover); unset: the
   * provider's own per-resource name, except for the CRDs, which always name ADOPT_FIELD_MANAGER.
   */
  fieldManager?: string;
  /** The Typha calico-node connects to: names.ts STANDARD_TYPHA unless a takeover runs beside an old one. */
  typha?: TyphaEndpoint;
}

/** The objects grouped the way the component creates them. */
export interface CalicoObjectGroups {
  /** The namespace to create, or undefined when it is built in. */
  namespace: Namespace | undefined;
  crds: ReturnType<typeof renderCrds>;
  rbac: ReturnType<typeof renderRbac>;
  typha: { deployment: Deployment; service: Service; disruptionBudget: PodDisruptionBudget };
  /** The CA ConfigMap and the two certificate Secrets, their contents filled in at deploy time. */
  tls: { ca: ConfigMap; server: Secret; client: Secret };
  autoscaler: AutoscalerObjects;
  node: DaemonSet;
}

export function renderCalicoObjectGroups(settings: CalicoSettings): CalicoObjectGroups {
  const groups = renderGroups(settings);
  return settings.fieldManager === undefined ? groups : withFieldManager(groups, settings.fieldManager);
}

function renderGroups(settings: CalicoSettings): CalicoObjectGroups {
  const { namespace, version, registry } = settings;
  const typha = settings.typha ?? STANDARD_TYPHA;
  return {
    namespace: BUILT_IN_NAMESPACES.includes(namespace)
      ? undefined
      : { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace, labels: { ...COMMON_LABELS } } },
    // The CRDs outlive the stack: a fixed field manager is the one a later deployment applies them with.
    crds: withFieldManager(renderCrds(version), ADOPT_FIELD_MANAGER),
    rbac: renderRbac(namespace, version),
    typha: {
      deployment: renderTyphaDeployment(
        namespace,
        registry,
        version,
        typhaReplicas(settings.initialNodes),
        settings.minNodes,
        typha,
      ),
      service: renderTyphaService(namespace, typha),
      disruptionBudget: renderTyphaDisruptionBudget(namespace, typha),
    },
    tls: {
      ca: renderTyphaCaConfigMap(namespace),
      server: renderTlsSecret(TYPHA_SERVER_SECRET, namespace),
      client: renderTlsSecret(FELIX_CLIENT_SECRET, namespace),
    },
    autoscaler: renderTyphaAutoscaler(namespace, settings.autoscalerRegistry, typha.name),
    node: renderCalicoNode(namespace, registry, version, settings.maxUnavailable, typha, settings.felix),
  };
}

/** Every object, in the documented apply order. */
export function renderCalicoObjects(settings: CalicoSettings): CalicoObject[] {
  const groups = renderCalicoObjectGroups(settings);
  return [
    ...(groups.namespace ? [groups.namespace] : []),
    ...groups.crds,
    ...groups.rbac,
    groups.tls.ca,
    groups.tls.server,
    groups.tls.client,
    groups.typha.deployment,
    groups.typha.service,
    groups.typha.disruptionBudget,
    ...autoscalerObjectList(groups.autoscaler),
    groups.node,
  ];
}

const KIND_SLUGS: Record<CalicoObject["kind"], string> = {
  Namespace: "namespace",
  CustomResourceDefinition: "crd",
  ServiceAccount: "sa",
  ClusterRole: "role",
  ClusterRoleBinding: "binding",
  Role: "namespacedrole",
  RoleBinding: "namespacedbinding",
  ConfigMap: "configmap",
  Secret: "secret",
  Deployment: "deployment",
  Service: "service",
  PodDisruptionBudget: "pdb",
  DaemonSet: "daemonset",
};

/**
 * The Pulumi name of an object's resource inside a component called `componentName`: CRDs by plural
 * (`<name>-crd-felixconfigurations`), everything else by kind and object name
 * (`<name>-daemonset-calico-node`). Stable across versions and namespaces, unique per component.
 */
export function childResourceName(componentName: string, object: CalicoObject): string {
  const id = object.kind === "CustomResourceDefinition" ? object.spec.names.plural : object.metadata.name;
  return `${componentName}-${KIND_SLUGS[object.kind]}-${id}`;
}
