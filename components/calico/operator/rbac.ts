/**
 * The Tigera operator's permissions, as upstream grants them per release (ClusterRole `tigera-operator` of
 * projectcalico/calico `charts/tigera-operator/templates/tigera-operator/02-role-tigera-operator.yaml`,
 * rendered for a non-OpenShift cluster, at the tags of releases.ts), grouped here by purpose. Two upstream
 * rules are left out: PodSecurityPolicy `use` and management, an API removed in Kubernetes 1.25, older
 * than any release this program deploys.
 *
 * No wildcard in any verbs, resources or apiGroups. The operator is nevertheless as powerful as a cluster
 * admin: `bind` and `escalate` on every role, and read access to every Secret, because it creates the
 * RBAC and the certificates of everything it installs. `<tier>.*` in resourceNames is not an RBAC
 * wildcard: the Calico API server reads it as "every policy of that tier"; Kubernetes compares it as a
 * literal name.
 */
import { CALICO_CRD_KINDS, CALICO_CRD_GROUP, KUBERNETES_POLICY_GROUP } from "../crds";
import type { PolicyRule } from "../object-shapes";

const CRUD = ["create", "get", "list", "update", "delete", "watch"];
const READ = ["get", "list", "watch"];
const CRDS = { apiGroups: ["apiextensions.k8s.io"], resources: ["customresourcedefinitions"] };

/** The operator's own kinds (operator.tigera.io), per release line. */
function operatorKinds(line: "3.31" | "3.32"): string[] {
  const kinds = [
    "apiservers",
    "gatewayapis",
    "imagesets",
    "installations",
    "tigerastatuses",
    "whiskers",
    "goldmanes",
    "managementclusterconnections",
  ];
  return line === "3.32" ? [...kinds, "istios"] : kinds;
}

/** Calico's kinds under a group; the projectcalico.org (v3) API calls IPAMConfig `ipamconfigurations`. */
function calicoCrdNames(group: string): string[] {
  return CALICO_CRD_KINDS.map((kind) => {
    const plural =
      group === CALICO_CRD_GROUP || kind.plural !== "ipamconfigs" ? kind.plural : "ipamconfigurations";
    return `${plural}.${group}`;
  });
}

/** Gateway API and Envoy Gateway CRDs the operator keeps current once a GatewayAPI resource asks for them. */
function gatewayCrdNames(release: string): string[] {
  const gateway = ["backendlbpolicies", "backendtlspolicies", "gatewayclasses", "gateways", "grpcroutes"]
    .concat(["httproutes", "referencegrants", "tcproutes", "tlsroutes", "udproutes"])
    .map((plural) => `${plural}.gateway.networking.k8s.io`);
  // v3.32.0 named the listener-set kind by its experimental group; v3.31 and v3.32.1 by the standard one.
  const listenerSets =
    release === "v3.32.0"
      ? "xlistenersets.gateway.networking.x-k8s.io"
      : "listenersets.gateway.networking.k8s.io";
  const envoy = ["backends", "backendtrafficpolicies", "clienttrafficpolicies", "envoyextensionpolicies"]
    .concat(["envoypatchpolicies", "envoyproxies", "httproutefilters", "securitypolicies"])
    .map((plural) => `${plural}.gateway.envoyproxy.io`);
  return [
    ...gateway,
    "xbackendtrafficpolicies.gateway.networking.x-k8s.io",
    listenerSets,
    "xmeshes.gateway.networking.x-k8s.io",
    ...envoy,
  ];
}

/** `-manage-crds=true`: the operator creates its CRDs and Calico's at start and keeps them current. */
function crdRules(release: string, line: "3.31" | "3.32"): PolicyRule[] {
  const operatorCrds = operatorKinds(line).map((plural) => `${plural}.operator.tigera.io`);
  const owned =
    line === "3.31"
      ? [
          {
            ...CRDS,
            verbs: ["update"],
            resourceNames: [...operatorCrds, ...calicoCrdNames(CALICO_CRD_GROUP)],
          },
        ]
      : [
          { ...CRDS, verbs: ["update"], resourceNames: calicoCrdNames(CALICO_CRD_GROUP) },
          { ...CRDS, verbs: ["update"], resourceNames: calicoCrdNames("projectcalico.org") },
          { ...CRDS, verbs: ["update"], resourceNames: operatorCrds },
        ];
  // Upstream policy kinds the operator may also remove when a release drops them.
  const policyKinds =
    line === "3.31" ? ["adminnetworkpolicies", "baselineadminnetworkpolicies"] : ["clusternetworkpolicies"];
  return [
    { ...CRDS, verbs: ["get", "list", "watch", "create"] },
    ...owned,
    {
      ...CRDS,
      verbs: ["update", "delete"],
      resourceNames: policyKinds.map((plural) => `${plural}.${KUBERNETES_POLICY_GROUP}`),
    },
    { ...CRDS, verbs: ["update"], resourceNames: gatewayCrdNames(release) },
  ];
}

/** The Kubernetes objects of everything the operator installs: workloads, their RBAC and certificates. */
function workloadRules(line: "3.31" | "3.32"): PolicyRule[] {
  return [
    {
      apiGroups: [""],
      resources: [
        "namespaces",
        "pods",
        "podtemplates",
        "services",
        "endpoints",
        "events",
        "configmaps",
        "serviceaccounts",
      ],
      verbs: CRUD,
    },
    // Certificates it issues and the pull secrets it copies live in Secrets of several namespaces.
    { apiGroups: [""], resources: ["resourcequotas", "secrets"], verbs: ["list", "get", "watch"] },
    {
      apiGroups: [""],
      resources: ["resourcequotas"],
      verbs: CRUD,
      resourceNames: ["calico-critical-pods", "tigera-critical-pods"],
    },
    // Node labels drive the migration from a manifest install, node by node.
    { apiGroups: [""], resources: ["nodes"], verbs: ["get", "patch", "list", "watch"] },
    // Its own ServiceAccount's name, learnt through a TokenReview of its token.
    { apiGroups: ["authentication.k8s.io"], resources: ["tokenreviews"], verbs: ["create"] },
    // It writes the roles of every component it installs, so it may grant what it holds and more.
    {
      apiGroups: ["rbac.authorization.k8s.io"],
      resources: ["clusterroles", "clusterrolebindings", "rolebindings", "roles"],
      verbs: [...CRUD, "bind", "escalate"],
    },
    {
      apiGroups: ["apps"],
      resources: ["deployments", "daemonsets", "statefulsets"],
      verbs: ["create", "get", "list", "patch", "update", "delete", "watch"],
    },
    {
      apiGroups: ["apps"],
      resources: ["deployments/finalizers"],
      verbs: ["update"],
      resourceNames: ["tigera-operator"],
    },
    { apiGroups: ["networking.k8s.io"], resources: ["networkpolicies"], verbs: CRUD },
    { apiGroups: ["scheduling.k8s.io"], resources: ["priorityclasses"], verbs: CRUD },
    { apiGroups: ["policy"], resources: ["poddisruptionbudgets"], verbs: CRUD },
    {
      apiGroups: ["apiregistration.k8s.io"],
      resources: ["apiservices"],
      verbs:
        line === "3.31"
          ? ["list", "watch", "create", "update"]
          : ["list", "watch", "create", "update", "delete"],
    },
    { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: READ },
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: CRUD },
    { apiGroups: ["storage.k8s.io"], resources: ["csidrivers"], verbs: CRUD },
    {
      apiGroups: ["certificates.k8s.io"],
      resources: ["certificatesigningrequests"],
      verbs: ["list", "watch"],
    },
  ];
}

/** Its own custom resources: read them, write their status and finalizers, create TigeraStatus. */
function operatorResourceRules(line: "3.31" | "3.32"): PolicyRule[] {
  const withSubresources = (kinds: string[], subresources: string[]) =>
    kinds.flatMap((kind) => [kind, ...subresources.map((sub) => `${kind}/${sub}`)]);
  const resources = [
    ...withSubresources(["apiservers"], ["finalizers", "status"]),
    ...withSubresources(["gatewayapis"], ["finalizers"]),
    ...withSubresources(["goldmanes"], ["finalizers", "status"]),
    "imagesets",
    ...withSubresources(["installations", "managementclusterconnections"], ["finalizers", "status"]),
    "tigerastatuses",
    "tigerastatuses/status",
    "tigerastatuses/finalizers",
    ...withSubresources(["whiskers"], ["finalizers", "status"]),
    ...(line === "3.32" ? withSubresources(["istios"], ["finalizers", "status"]) : []),
  ];
  return [
    { apiGroups: ["operator.tigera.io"], resources, verbs: ["get", "list", "update", "patch", "watch"] },
    { apiGroups: ["operator.tigera.io"], resources: ["tigerastatuses"], verbs: ["create", "delete"] },
    {
      apiGroups: ["operator.tigera.io"],
      resources: ["installations", "apiservers", "whiskers", "goldmanes"],
      verbs: ["delete"],
    },
  ];
}

/** Calico's own configuration and policy tiers, through the CRDs and the Calico API server. */
function calicoRules(line: "3.31" | "3.32"): PolicyRule[] {
  const groups = line === "3.31" ? [CALICO_CRD_GROUP] : [CALICO_CRD_GROUP, "projectcalico.org"];
  const tier = line === "3.31" ? "allow-tigera" : "calico-system";
  const tierPolicies = ["tier.networkpolicies", "tier.globalnetworkpolicies"];
  return [
    {
      apiGroups: groups,
      resources:
        line === "3.31"
          ? ["felixconfigurations", "ippools"]
          : ["felixconfigurations", "bgpconfigurations", "ippools"],
      verbs: ["create", "patch", "list", "get", "watch"],
    },
    {
      apiGroups: groups,
      resources: ["kubecontrollersconfigurations", "bgpconfigurations", "clusterinformations"],
      verbs: READ,
    },
    {
      apiGroups: ["projectcalico.org"],
      resources: ["ippools"],
      verbs: ["create", "update", "delete", "patch", "get", "list", "watch"],
    },
    {
      apiGroups: ["projectcalico.org"],
      resources: ["ipamconfigurations", "clusterinformations"],
      verbs: READ,
    },
    ...(line === "3.32"
      ? [
          {
            apiGroups: ["projectcalico.org"],
            resources: ["networkpolicies", "globalnetworkpolicies", "networksets"],
            verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
          },
        ]
      : []),
    {
      apiGroups: ["projectcalico.org"],
      resources: tierPolicies,
      verbs: ["list", "watch", "get", "create", "update", "delete"],
      resourceNames: [`${tier}.*`],
    },
    ...(line === "3.32"
      ? [{ apiGroups: ["projectcalico.org"], resources: tierPolicies, verbs: ["list", "watch", "get"] }]
      : []),
    {
      apiGroups: ["projectcalico.org"],
      resources: ["tiers"],
      verbs: ["get", "delete", "update"],
      resourceNames: [tier],
    },
    {
      apiGroups: ["projectcalico.org"],
      resources: ["tiers"],
      verbs: line === "3.31" ? ["create", "list", "watch"] : ["get", "create", "list", "watch"],
    },
  ];
}

/** Admission objects of the API server, Envoy Gateway and Istio, and the Gateway API and its jobs. */
function admissionAndGatewayRules(release: string, line: "3.31" | "3.32"): PolicyRule[] {
  const admission = ["admissionregistration.k8s.io"];
  const policies = {
    apiGroups: admission,
    resources: ["validatingadmissionpolicies", "validatingadmissionpolicybindings"],
    verbs: CRUD,
  };
  const webhooks: PolicyRule[] =
    line === "3.31"
      ? [
          {
            apiGroups: admission,
            resources: ["mutatingwebhookconfigurations"],
            verbs: ["create", "delete", "get", "list", "watch"],
          },
          {
            apiGroups: admission,
            resources: ["mutatingwebhookconfigurations"],
            verbs: ["update"],
            resourceNames: ["envoy-gateway-topology-injector.tigera-gateway"],
          },
          policies,
        ]
      : [
          {
            apiGroups: admission,
            resources: ["validatingwebhookconfigurations", "mutatingwebhookconfigurations"],
            verbs: ["create", "delete", "get", "list", "watch"],
          },
          {
            apiGroups: admission,
            resources: ["mutatingwebhookconfigurations"],
            verbs: ["update"],
            resourceNames: ["envoy-gateway-topology-injector.tigera-gateway"],
          },
          {
            apiGroups: admission,
            resources: ["validatingwebhookconfigurations"],
            verbs: ["update"],
            resourceNames: ["istiod-default-validator", "istio-validator-calico-system"],
          },
          // v3.32.0 dropped the admission-policy rule; v3.32.1 restored it.
          ...(release === "v3.32.0" ? [] : [policies]),
          { apiGroups: admission, resources: ["validatingwebhookconfigurations"], verbs: CRUD },
          {
            apiGroups: admission,
            resources: ["mutatingadmissionpolicies", "mutatingadmissionpolicybindings"],
            verbs: CRUD,
          },
        ];
  const gateway: PolicyRule[] = [
    { apiGroups: ["gateway.networking.k8s.io"], resources: ["gatewayclasses"], verbs: CRUD },
    { apiGroups: ["gateway.envoyproxy.io"], resources: ["envoyproxies"], verbs: CRUD },
    { apiGroups: ["batch"], resources: ["jobs"], verbs: ["create", "list", "watch"] },
    {
      apiGroups: ["batch"],
      resources: ["jobs"],
      verbs: ["update"],
      resourceNames: ["tigera-gateway-api-gateway-helm-certgen"],
    },
  ];
  const istioAndMigration: PolicyRule[] =
    line === "3.32"
      ? [
          { apiGroups: ["kubevirt.io"], resources: ["virtualmachineinstancemigrations"], verbs: READ },
          {
            apiGroups: ["autoscaling"],
            resources: ["horizontalpodautoscalers"],
            verbs: ["create", "get", "list", "watch"],
          },
          {
            apiGroups: ["autoscaling"],
            resources: ["horizontalpodautoscalers"],
            verbs: ["update"],
            resourceNames: ["istiod"],
          },
          { apiGroups: ["migration.projectcalico.org"], resources: ["datastoremigrations"], verbs: READ },
        ]
      : [];
  return [...webhooks, ...gateway, ...istioAndMigration];
}

/** Every rule of the `tigera-operator` ClusterRole for the operator that installs `release`. */
export function operatorRules(release: string): PolicyRule[] {
  const line = release.startsWith("v3.31.") ? "3.31" : "3.32";
  return [
    ...crdRules(release, line),
    ...workloadRules(line),
    ...operatorResourceRules(line),
    ...calicoRules(line),
    ...admissionAndGatewayRules(release, line),
  ];
}

/** ClusterRole `tigera-operator-secrets`, bound per namespace: the Secrets the operator writes there. */
export const OPERATOR_SECRETS_RULES: PolicyRule[] = [
  { apiGroups: [""], resources: ["secrets"], verbs: ["create", "update", "delete"] },
];
