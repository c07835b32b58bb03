/**
 * The CalicoPolicyOnly component inside the real program, for every stack: the exact object set, its
 * wiring (parent, provider, dependencies, options) and the readiness outputs.
 */
import * as assert from "node:assert/strict";
import { dependenciesOf, dependencyGraph } from "../offline/graph";
import { typhaReplicas } from "../components/calico/typha";
import { derivedTimeoutMinutes, estimateRollout, type MaxUnavailable } from "../components/calico/rollout";
import { CA_KEY, CERTIFICATE_EXPIRY_ANNOTATION } from "../components/calico/typha-tls";
import { type CalicoMinor, supportedMinorOf } from "../components/calico/defaults";
import {
  KNOWN_AFTER_UP,
  type ResourceRecord,
  type StackEvaluation,
  evaluateStackExpectingError,
} from "../offline/engine";
import { calicoObjects } from "../offline/calico-objects";
import { ConfigError } from "../stacks";
import { STACKS, evaluated, evaluatedWith, ofType, one, providerFor, stackValue } from "./helpers";
import { validateKubernetesObject } from "./k8s-schema";

const COMPONENT = "eks-calico:calico:PolicyOnly";

interface StackCalicoConfig {
  version: string;
  registry: string;
  namespace: string;
  maxUnavailable: MaxUnavailable;
}

interface GroupSizes {
  name: string;
  desiredSize: number;
  maxSize: number;
}

const sum = (groups: GroupSizes[], key: "desiredSize" | "maxSize") => groups.reduce((n, g) => n + g[key], 0);

/** The resource type token @pulumi/kubernetes registers for an object. */
function typeToken(object: { apiVersion: string; kind: string }): string {
  const apiVersion = object.apiVersion.includes("/") ? object.apiVersion : `core/${object.apiVersion}`;
  return `kubernetes:${apiVersion}:${object.kind}`;
}

/** Every resource whose parent is the Calico component. */
/** Every Kubernetes object whose parent is the Calico component (its tls:* resources are tested apart). */
function calicoChildren(evaluation: StackEvaluation): ResourceRecord[] {
  const component = one(evaluation, COMPONENT);
  return evaluation.resources.filter((r) => r.parent === component.urn && r.type.startsWith("kubernetes:"));
}

/**
 * A registered object's inputs with what only exists at deploy time emptied, as the renderers leave it:
 * the certificates and keys (from @pulumi/tls) and the certificate-expiry annotation on pod templates.
 */
function withoutDeployTimeValues(inputs: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(inputs) as {
    kind?: string;
    data?: Record<string, string>;
    stringData?: Record<string, string>;
    spec?: { template?: { metadata?: { annotations?: Record<string, string> } } };
  };
  if (copy.kind === "Secret" && copy.stringData) {
    copy.stringData = Object.fromEntries(Object.keys(copy.stringData).map((k) => [k, ""]));
  }
  if (copy.kind === "ConfigMap" && copy.data?.[CA_KEY] !== undefined) copy.data[CA_KEY] = "";
  const metadata = copy.spec?.template?.metadata;
  if (metadata?.annotations?.[CERTIFICATE_EXPIRY_ANNOTATION] !== undefined) {
    delete metadata.annotations[CERTIFICATE_EXPIRY_ANNOTATION];
    if (Object.keys(metadata.annotations).length === 0) delete metadata.annotations;
  }
  return copy;
}

/**
 * The policy.networking.k8s.io CRDs each Calico line installs: v3.31's AdminNetworkPolicy and
 * BaselineAdminNetworkPolicy, v3.32's ClusterNetworkPolicy (components/calico/crds.ts says why).
 */
const POLICY_CRDS: Readonly<Record<CalicoMinor, readonly string[]>> = {
  "3.31": ["adminnetworkpolicies", "baselineadminnetworkpolicies"],
  "3.32": ["clusternetworkpolicies"],
};

/**
 * The objects a policy-only install of a Calico release has, as `Kind namespace/name` (cluster-scoped ones
 * with an empty namespace): calico-node, Typha and its autoscaler with their RBAC and TLS, Calico's 22 CRDs
 * of crd.projectcalico.org and its line's CRDs of policy.networking.k8s.io (test/calico-crds.test.ts lists
 * them).
 */
function inventory(namespace: string, version: string): string[] {
  const ns = (kind: string, name: string) => `${kind} ${namespace}/${name}`;
  const cluster = (kind: string, name: string) => `${kind} /${name}`;
  const crds = [
    ...[
      "bgpconfigurations",
      "bgpfilters",
      "bgppeers",
      "blockaffinities",
      "caliconodestatuses",
      "clusterinformations",
      "felixconfigurations",
      "globalnetworkpolicies",
      "globalnetworksets",
      "hostendpoints",
      "ipamblocks",
      "ipamconfigs",
      "ipamhandles",
      "ippools",
      "ipreservations",
      "kubecontrollersconfigurations",
      "networkpolicies",
      "networksets",
      "stagedglobalnetworkpolicies",
      "stagedkubernetesnetworkpolicies",
      "stagednetworkpolicies",
      "tiers",
    ].map((plural) => `${plural}.crd.projectcalico.org`),
    ...POLICY_CRDS[supportedMinorOf(version)].map((plural) => `${plural}.policy.networking.k8s.io`),
  ];
  return [
    ...crds.map((name) => cluster("CustomResourceDefinition", name)),
    ns("ServiceAccount", "calico-node"),
    ns("ServiceAccount", "calico-typha"),
    ns("ServiceAccount", "calico-typha-autoscaler"),
    ns("ConfigMap", "calico-typha-autoscaler"),
    ns("ConfigMap", "calico-typha-ca"),
    ns("Secret", "calico-typha-tls"),
    ns("Secret", "calico-felix-typha-tls"),
    ns("Service", "calico-typha"),
    ns("PodDisruptionBudget", "calico-typha"),
    ns("Role", "calico-typha-autoscaler"),
    ns("RoleBinding", "calico-typha-autoscaler"),
    ns("Deployment", "calico-typha"),
    ns("Deployment", "calico-typha-autoscaler"),
    ns("DaemonSet", "calico-node"),
    ...["calico-node", "calico-typha", "calico-typha-autoscaler", "calico-tier-getter"].flatMap((name) => [
      cluster("ClusterRole", name),
      cluster("ClusterRoleBinding", name),
    ]),
    // aws-node may annotate pods with their IP (components/calico/rbac.ts).
    cluster("ClusterRole", "eks-calico-aws-node-pod-patch"),
    cluster("ClusterRoleBinding", "eks-calico-aws-node-pod-patch"),
    // The startup taint's remover (components/startup-taint).
    ...["ServiceAccount", "Role", "RoleBinding", "DaemonSet"].map((kind) =>
      ns(kind, "calico-startup-taint-remover"),
    ),
    ...[
      "ClusterRole",
      "ClusterRoleBinding",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicyBinding",
    ].map((kind) => cluster(kind, "calico-startup-taint-remover")),
  ].sort();
}

/** The component's Kubernetes objects as `Kind namespace/name`. */
function registered(evaluation: StackEvaluation): string[] {
  return calicoChildren(evaluation)
    .map((c) => {
      const metadata = c.inputs.metadata as { namespace?: string; name: string };
      return `${c.type.split(":").pop()} ${metadata.namespace ?? ""}/${metadata.name}`;
    })
    .sort();
}

function sortedByTypeAndName(records: { type: string; metadata?: unknown; name?: string }[]): string[] {
  return records.map((r) => `${r.type} ${r.name ?? ""}`).sort();
}

for (const stack of STACKS) {
  describe(`Calico in ${stack}`, () => {
    const calicoConfig = stackValue<StackCalicoConfig>(stack, "calico");
    const groups = stackValue<GroupSizes[]>(stack, "nodeGroups");

    it("registers the policy-only install's objects, each as its own typed resource", async () => {
      const evaluation = await evaluated(stack);
      assert.deepEqual(registered(evaluation), inventory(calicoConfig.namespace, calicoConfig.version));
      // Never a ConfigFile, ConfigGroup, Helm chart or URL: every object is visible to tests and policies.
      assert.ok(
        calicoChildren(evaluation).every(
          (c) => c.custom && c.type === typeToken(c.inputs as { apiVersion: string; kind: string }),
        ),
      );
    });

    it("validates every registered object against the Kubernetes OpenAPI schema", async () => {
      // As calico.yaml has them: an open CRD with the program's own schema.
      const evaluation = await evaluated(stack);
      const children = new Set(calicoChildren(evaluation).map((c) => c.urn));
      for (const child of calicoObjects(evaluation).filter((c) => children.has(c.urn))) {
        validateKubernetesObject(child.inputs as { apiVersion: string; kind: string });
      }
    });

    it("creates every object through the cluster's Kubernetes provider, the CRDs through one that upserts", async () => {
      const evaluation = await evaluated(stack);
      const provider = one(evaluation, "pulumi:providers:kubernetes", "cluster-k8s");
      for (const child of calicoChildren(evaluation)) {
        assert.equal(
          child.provider,
          providerFor(evaluation, provider, child),
          `${child.name} uses another provider`,
        );
      }
    });

    it("makes every object wait for every node group", async () => {
      const evaluation = await evaluated(stack);
      const nodeGroups = ofType(evaluation, "aws:eks/nodeGroup:NodeGroup").map((g) => g.urn);
      assert.equal(nodeGroups.length, groups.length);
      for (const child of calicoChildren(evaluation)) {
        for (const nodeGroup of nodeGroups) {
          assert.ok(child.dependencies.includes(nodeGroup), `${child.name} does not wait for ${nodeGroup}`);
        }
      }
    });

    it("starts calico-node after its CRDs, RBAC and Typha, not after Typha's autoscaler", async () => {
      const evaluation = await evaluated(stack);
      const children = calicoChildren(evaluation);
      const node = one(evaluation, "kubernetes:apps/v1:DaemonSet", "calico-daemonset-calico-node");
      const autoscaler = children.filter((c) => c.name.endsWith("-calico-typha-autoscaler"));
      assert.equal(autoscaler.length, 7);
      // The startup taint's remover waits for calico-node on each node, never the other way round.
      const remover = children.filter((c) => c.name.includes("-startup-taint-"));
      assert.equal(remover.length, 8);
      const before = children.filter(
        (c) =>
          c !== node &&
          !c.type.endsWith(":PodDisruptionBudget") &&
          !autoscaler.includes(c) &&
          !remover.includes(c),
      );
      assert.ok(before.length > 20);
      // What calico-node waits for, directly or through what it depends on (Typha's own RBAC is applied
      // just before Typha).
      const waitsFor = dependenciesOf(dependencyGraph(evaluation), node.urn);
      for (const other of [...autoscaler, ...remover]) assert.ok(!waitsFor.has(other.urn), other.name);
      for (const prerequisite of before) {
        assert.ok(waitsFor.has(prerequisite.urn), `calico-node does not wait for ${prerequisite.name}`);
      }
    });

    it("retains CRDs on delete, and only CRDs", async () => {
      for (const child of calicoChildren(await evaluated(stack))) {
        const isCrd = child.type === "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition";
        assert.equal(child.options.retainOnDelete, isCrd, child.name);
      }
    });

    it("awaits calico-node, Typha and its autoscaler with the timeout derived from the rollout", async () => {
      const evaluation = await evaluated(stack);
      const minutes = derivedTimeoutMinutes(
        estimateRollout(sum(groups, "maxSize"), calicoConfig.maxUnavailable),
      );
      assert.ok(minutes >= 10);
      const timeout = `${minutes}m`;
      for (const [type, name] of [
        ["kubernetes:apps/v1:DaemonSet", "calico-daemonset-calico-node"],
        ["kubernetes:apps/v1:Deployment", "calico-deployment-calico-typha"],
        ["kubernetes:apps/v1:Deployment", "calico-deployment-calico-typha-autoscaler"],
      ]) {
        const workload = one(evaluation, type, name);
        assert.deepEqual(workload.options.customTimeouts, { create: timeout, update: timeout });
        // The await is what turns a broken rollout into a failed `pulumi up`: it must not be skipped.
        const annotations =
          (workload.inputs.metadata as { annotations?: Record<string, string> }).annotations ?? {};
        assert.equal(annotations["pulumi.com/skipAwait"], undefined);
      }
    });

    it("starts Typha at the replicas for the nodes that exist, then leaves the count to the autoscaler", async () => {
      const evaluation = await evaluated(stack);
      const initial = typhaReplicas(sum(groups, "desiredSize"));
      const deployment = one(evaluation, "kubernetes:apps/v1:Deployment", "calico-deployment-calico-typha");
      assert.equal((deployment.inputs.spec as { replicas: number }).replicas, initial);
      assert.deepEqual(deployment.options.ignoreChanges, ["spec.replicas"]);
      assert.equal((evaluation.outputs.calico as { typhaReplicas: number }).typhaReplicas, initial);
    });

    it("exports what the config decides, and the DaemonSet's and Typha's status as known after up", async () => {
      const nodes = sum(groups, "desiredSize");
      const calico = (await evaluated(stack)).outputs.calico as Record<string, unknown>;
      // What the cluster reports: proven on literal statuses (test/calico-status.test.ts) and on a real
      // control plane (test/cluster/calico.test.ts, outputs equal kubectl's).
      assert.deepEqual(calico, {
        installer: "manifest",
        namespace: calicoConfig.namespace,
        version: calicoConfig.version,
        // One calico-node pod on every node of the stack's groups: it tolerates every taint.
        desired: nodes,
        current: KNOWN_AFTER_UP,
        updated: KNOWN_AFTER_UP,
        ready: KNOWN_AFTER_UP,
        available: KNOWN_AFTER_UP,
        isReady: KNOWN_AFTER_UP,
        typhaReplicas: typhaReplicas(nodes),
        typhaReadyReplicas: KNOWN_AFTER_UP,
        // Issued when `pulumi up` runs, not at the offline world's instant.
        typhaCertificatesExpire: KNOWN_AFTER_UP,
        policyEnforced: KNOWN_AFTER_UP,
        probe: KNOWN_AFTER_UP,
      });
    });
  });
}

describe("Calico readiness and overrides", () => {
  it("refuses a stack whose node groups all start at zero nodes, before any resource", async () => {
    const { error, resources } = await evaluateStackExpectingError("dev", {
      config: {
        "eks-calico:nodeGroups": [{ name: "general", minSize: 0, desiredSize: 0, maxSize: 2 }],
      },
    });
    assert.ok(ConfigError.isConfigError(error));
    assert.deepEqual(
      error.problems.map((p) => p.path),
      ["nodeGroups"],
    );
    assert.match(error.problems[0].rule, /Calico cannot become ready/);
    assert.deepEqual(
      resources.filter((r) => r.custom),
      [],
    );
  });

  it("moves calico-node and Typha to an overridden namespace, creating it", async () => {
    const overrides = { namespace: "calico-system" };
    const evaluation = await evaluatedWith("dev", {
      config: { "eks-calico:calico": { ...stackValue<StackCalicoConfig>("dev", "calico"), ...overrides } },
    });
    const children = calicoChildren(evaluation);
    const namespace = one(evaluation, "kubernetes:core/v1:Namespace", "calico-namespace-calico-system");
    assert.equal((namespace.inputs.metadata as { name: string }).name, "calico-system");
    const namespaced = children.filter(
      (c) => (c.inputs.metadata as { namespace?: string }).namespace !== undefined,
    );
    assert.deepEqual(
      sortedByTypeAndName(namespaced),
      sortedByTypeAndName(
        children.filter((c) =>
          /:(ServiceAccount|Role|RoleBinding|ConfigMap|Secret|Deployment|Service|PodDisruptionBudget|DaemonSet)$/.test(
            c.type,
          ),
        ),
      ),
    );
    namespaced.forEach((c) =>
      assert.equal((c.inputs.metadata as { namespace: string }).namespace, "calico-system"),
    );
    assert.equal((evaluation.outputs.calico as { namespace: string }).namespace, "calico-system");
    assert.deepEqual(
      registered(evaluation),
      [
        ...inventory("calico-system", stackValue<StackCalicoConfig>("dev", "calico").version),
        "Namespace /calico-system",
      ].sort(),
    );
  });

  it("bumps the Calico version in place: same resources, only images and version labels change", async () => {
    const calico = stackValue<StackCalicoConfig>("dev", "calico");
    const before = await evaluatedWith("dev", {
      config: { "eks-calico:calico": { ...calico, version: "v3.31.6" } },
    });
    const after = await evaluated("dev");
    const urns = (e: StackEvaluation) =>
      calicoChildren(e)
        .map((c) => c.urn)
        .sort();
    assert.deepEqual(urns(after), urns(before), "a version bump must not add, remove or rename resources");
    const changed = calicoChildren(after).filter((c) => {
      // Each offline evaluation makes new keys; a real bump keeps the certificates in state.
      const old = calicoChildren(before).find((b) => b.urn === c.urn);
      return (
        JSON.stringify(old && withoutDeployTimeValues(old.inputs)) !==
        JSON.stringify(withoutDeployTimeValues(c.inputs))
      );
    });
    assert.deepEqual(changed.map((c) => c.type).sort(), [
      "kubernetes:apps/v1:DaemonSet",
      "kubernetes:apps/v1:Deployment",
    ]);
    for (const workload of changed) {
      const text = (e: StackEvaluation) =>
        JSON.stringify(calicoChildren(e).find((c) => c.urn === workload.urn)?.inputs);
      assert.equal(
        text(before).replaceAll("v3.31.6", "v3.31.7"),
        text(after),
        `${workload.name} changed beyond the version`,
      );
    }
  });
});
