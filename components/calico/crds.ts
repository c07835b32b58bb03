/**
 * The CustomResourceDefinitions calico-node and Typha need in Kubernetes-datastore mode, per release line.
 *
 * Written here as apiextensions.k8s.io/v1 with structural schemas, not copied from upstream. The kinds
 * people write by hand (policies, tiers, network sets, host endpoints, Felix settings) get a typed `spec`
 * written from Calico's API Go types (crd-schemas/), so a misspelt field or a bad action is refused; every
 * other spec, and every status, is kept as given (docs/operating-calico.md says why the rest stay open).
 * Upstream's policy-only manifests of v3.31.7 and v3.32.1 ship v1 CRDs with structural schemas generated
 * from the same types; the defaults and status subresources they state are followed here
 * (test/fixtures/upstream-crds.yaml). Labels never depend on the Calico version and schemas depend
 * only on its line, so a patch bump never touches a CRD and a line change updates schemas in place (deleting
 * a CRD deletes every object of its kind, i.e. every Calico policy).
 */
import { COMMON_LABELS } from "./labels";
import { SUPPORTED_CALICO_MINORS, supportedMinorOf, type CalicoMinor } from "./defaults";
import { objectValidationsFor, specSchemaFor, type JsonSchema } from "./crd-schemas";
import type { CustomResourceDefinition } from "./object-shapes";

/** One CRD: its API group, served version, names and scope. */
export interface CrdKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  scope: "Cluster" | "Namespaced";
  shortNames?: string[];
  /** The lines whose upstream CRD has a status subresource (status written through `/status`). */
  statusSubresource?: readonly CalicoMinor[];
  /**
   * The CRD's annotations as upstream's manifest of the line carries them. A network-policy-api kind has
   * `api-approved.kubernetes.io`, without which the API server refuses a CRD in a *.k8s.io group (KEP-1111),
   * and the bundle version and channel of the network-policy-api release it comes from.
   */
  annotations?: Readonly<Record<string, string>>;
}

export const CALICO_CRD_GROUP = "crd.projectcalico.org";

function calico(kind: string, plural: string, scope: CrdKind["scope"] = "Cluster"): CrdKind {
  return { group: CALICO_CRD_GROUP, version: "v1", kind, plural, scope };
}

/**
 * The 22 crd.projectcalico.org kinds of Calico's calico-policy-only.yaml for v3.31 and v3.32 (the same
 * list on both lines). Only v3.32's KubeControllersConfiguration has a status subresource upstream
 * (test/fixtures/upstream-crds.yaml): calico-node writes CalicoNodeStatus through a plain `update`, so a
 * status subresource on another kind would make the API server drop what calico-node reports.
 */
export const CALICO_CRD_KINDS: readonly CrdKind[] = [
  calico("BGPConfiguration", "bgpconfigurations"),
  calico("BGPFilter", "bgpfilters"),
  calico("BGPPeer", "bgppeers"),
  calico("BlockAffinity", "blockaffinities"),
  calico("CalicoNodeStatus", "caliconodestatuses"),
  calico("ClusterInformation", "clusterinformations"),
  calico("FelixConfiguration", "felixconfigurations"),
  calico("GlobalNetworkPolicy", "globalnetworkpolicies"),
  calico("GlobalNetworkSet", "globalnetworksets"),
  calico("HostEndpoint", "hostendpoints"),
  calico("IPAMBlock", "ipamblocks"),
  calico("IPAMConfig", "ipamconfigs"),
  calico("IPAMHandle", "ipamhandles"),
  calico("IPPool", "ippools"),
  calico("IPReservation", "ipreservations"),
  { ...calico("KubeControllersConfiguration", "kubecontrollersconfigurations"), statusSubresource: ["3.32"] },
  calico("NetworkPolicy", "networkpolicies", "Namespaced"),
  calico("NetworkSet", "networksets", "Namespaced"),
  calico("StagedGlobalNetworkPolicy", "stagedglobalnetworkpolicies"),
  calico("StagedKubernetesNetworkPolicy", "stagedkubernetesnetworkpolicies", "Namespaced"),
  calico("StagedNetworkPolicy", "stagednetworkpolicies", "Namespaced"),
  calico("Tier", "tiers"),
];

export const KUBERNETES_POLICY_GROUP = "policy.networking.k8s.io";

/** The network-policy-api release a kind's CRD comes from: its API-approval PR, bundle version and channel. */
interface PolicyApiBundle {
  pr: number;
  bundleVersion: string;
  channel: "standard" | "experimental";
}

function kubernetesPolicy(
  kind: string,
  plural: string,
  version: string,
  shortName: string,
  bundle: PolicyApiBundle,
): CrdKind {
  return {
    group: KUBERNETES_POLICY_GROUP,
    version,
    kind,
    plural,
    scope: "Cluster",
    shortNames: [shortName],
    statusSubresource: SUPPORTED_CALICO_MINORS,
    annotations: {
      "api-approved.kubernetes.io": `https://github.com/kubernetes-sigs/network-policy-api/pull/${bundle.pr}`,
      [`${KUBERNETES_POLICY_GROUP}/bundle-version`]: bundle.bundleVersion,
      [`${KUBERNETES_POLICY_GROUP}/channel`]: bundle.channel,
    },
  };
}

/**
 * The bundles of upstream's manifests: v3.31.7 ships AdminNetworkPolicy and BaselineAdminNetworkPolicy from
 * network-policy-api v0.1.1 (experimental channel, approved in PR 30), v3.32.1 ClusterNetworkPolicy from
 * v0.2.0 (standard channel, PR 347): projectcalico/calico manifests/calico-policy-only.yaml at each release
 * (test/fixtures/upstream-crds.yaml).
 */
const ADMIN_POLICY_BUNDLE: PolicyApiBundle = { pr: 30, bundleVersion: "v0.1.1", channel: "experimental" };
const CLUSTER_POLICY_BUNDLE: PolicyApiBundle = { pr: 347, bundleVersion: "v0.2.0", channel: "standard" };

/**
 * Upstream network-policy-api kinds that Felix (through Typha) lists and watches in Kubernetes-datastore
 * mode (libcalico-go felixsyncerv1.go); without the CRD that list fails and Felix never becomes ready
 * (k0sproject/k0s#8200). v3.31 enforces AdminNetworkPolicy and BaselineAdminNetworkPolicy (tigera/docs
 * version-3.31 network-policy/policy-tiers/tiered-policy.mdx); v3.32 moved to their successor
 * ClusterNetworkPolicy (Calico's v3.32 manifest and calico-node ClusterRole).
 */
export const KUBERNETES_POLICY_CRD_KINDS: Readonly<Record<CalicoMinor, readonly CrdKind[]>> = {
  "3.31": [
    kubernetesPolicy("AdminNetworkPolicy", "adminnetworkpolicies", "v1alpha1", "anp", ADMIN_POLICY_BUNDLE),
    kubernetesPolicy(
      "BaselineAdminNetworkPolicy",
      "baselineadminnetworkpolicies",
      "v1alpha1",
      "banp",
      ADMIN_POLICY_BUNDLE,
    ),
  ],
  "3.32": [
    kubernetesPolicy(
      "ClusterNetworkPolicy",
      "clusternetworkpolicies",
      "v1alpha2",
      "cnp",
      CLUSTER_POLICY_BUNDLE,
    ),
  ],
};

/** Every CRD kind a Calico release needs: the Calico kinds, then that line's upstream policy kinds. */
export function crdKindsFor(version: string): readonly CrdKind[] {
  return [...CALICO_CRD_KINDS, ...KUBERNETES_POLICY_CRD_KINDS[supportedMinorOf(version)]];
}

/** The CRD's object name, `<plural>.<group>`. */
export function crdName(kind: CrdKind): string {
  return `${kind.plural}.${kind.group}`;
}

/** An object field the API server stores as given (structural: typed as an object, contents open). */
function keptAsGiven(): JsonSchema {
  return { type: "object", "x-kubernetes-preserve-unknown-fields": true };
}

/** The `spec` schema of a kind on a Calico line: typed for the Calico kinds crd-schemas/ covers, else open. */
function specSchema(kind: CrdKind, minor: CalicoMinor): JsonSchema {
  const typed = kind.group === CALICO_CRD_GROUP ? specSchemaFor(kind.kind, minor) : undefined;
  return typed ?? keptAsGiven();
}

/** The CEL rules the line states on the whole object, as the root schema's `x-kubernetes-validations`. */
function objectValidations(kind: CrdKind, minor: CalicoMinor) {
  const rules = kind.group === CALICO_CRD_GROUP ? objectValidationsFor(kind.kind, minor) : [];
  return rules.length === 0 ? {} : { "x-kubernetes-validations": [...rules] };
}

/**
 * A v1 CRD with a structural schema: typed apiVersion/kind/metadata, `spec` typed where crd-schemas/
 * covers the kind on `minor` and kept as given otherwise, status kept as given.
 */
export function renderCrd(kind: CrdKind, minor: CalicoMinor): CustomResourceDefinition {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: crdName(kind),
      labels: { ...COMMON_LABELS },
      ...(kind.annotations === undefined ? {} : { annotations: { ...kind.annotations } }),
    },
    spec: {
      group: kind.group,
      names: {
        kind: kind.kind,
        listKind: `${kind.kind}List`,
        plural: kind.plural,
        singular: kind.kind.toLowerCase(),
        ...(kind.shortNames === undefined ? {} : { shortNames: kind.shortNames }),
      },
      scope: kind.scope,
      versions: [
        {
          name: kind.version,
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                apiVersion: { type: "string" },
                kind: { type: "string" },
                metadata: { type: "object" },
                spec: specSchema(kind, minor),
                status: keptAsGiven(),
              },
              ...objectValidations(kind, minor),
            },
          },
          ...(kind.statusSubresource?.includes(minor) ? { subresources: { status: {} } } : {}),
        },
      ],
    },
  };
}

/** The CRDs of a Calico release, in the order of {@link crdKindsFor}, with that release line's schemas. */
export function renderCrds(version: string): CustomResourceDefinition[] {
  const minor = supportedMinorOf(version);
  return crdKindsFor(version).map((kind) => renderCrd(kind, minor));
}

/** Whether a rendered CRD keeps its `spec` open (any field accepted) rather than typed. */
export function hasOpenSpec(crd: CustomResourceDefinition): boolean {
  const schema = crd.spec.versions[0]?.schema?.openAPIV3Schema as JsonSchema | undefined;
  const spec = schema?.properties?.spec;
  return spec?.["x-kubernetes-preserve-unknown-fields"] === true && spec.properties === undefined;
}

/**
 * A CRD's spec with `schema` (a stricter one the cluster has, takeover/schemas.ts) as the schema of
 * every version it serves; unchanged when `schema` is undefined.
 */
export function withSchema(
  spec: CustomResourceDefinition["spec"],
  schema: Record<string, unknown> | undefined,
): CustomResourceDefinition["spec"] {
  if (schema === undefined) return spec;
  return { ...spec, versions: spec.versions.map((v) => ({ ...v, schema: { openAPIV3Schema: schema } })) };
}
