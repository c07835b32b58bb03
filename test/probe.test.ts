/**
 * The enforcement probe: what its objects are, what its two NetworkPolicies mean, when its
 * Jobs run again, and what the offline world concludes from them. What the client scripts do:
 * test/probe-scripts.test.ts. Where its pairs of clients run, and the report of a cluster with one
 * eligible node: test/probe-pairs.test.ts.
 */
import * as assert from "node:assert/strict";
import {
  DEFAULT_PROBE_REGISTRY,
  PROBE_NAMESPACE,
  type ProbeObject,
  type ProbeSettings,
  REPLACE_UNREADY_ANNOTATION,
  renderProbeObjects,
} from "../components/calico/probe/objects";
import { PAIRS } from "../components/calico/probe/clients";
import {
  DNS_BLOCKED_MESSAGE,
  NOT_ALLOWED_MESSAGE,
  NOT_ENFORCING_MESSAGE,
} from "../components/calico/probe/script";
import { type ClusterSimulation, evaluateStackExpectingError, SimulatedFailure } from "../offline/engine";
import { type AppliedObject, runJob } from "../offline/world/jobs";
import { nodesOfGroup } from "../offline/world/nodes";
import type { PlacedPod } from "../offline/world/scheduling";
import { applyObject } from "../offline/world/workloads";
import { ingressAllowed, isolatingPolicies, type NetworkPolicyObject } from "../offline/world/network-policy";
import { evaluated, evaluatedWith, ofType } from "./helpers";
import { validateKubernetesObject } from "./k8s-schema";

const SETTINGS: ProbeSettings = {
  registry: DEFAULT_PROBE_REGISTRY,
  timeoutMinutes: 5,
  enforcementInputs: {
    calicoVersion: "v3.31.7",
    calicoRegistry: "quay.io/calico",
    installer: "manifest",
    nodes: {},
  },
};
const objects = renderProbeObjects(SETTINGS);
const { "same-node": sameNode, "other-node": otherNode } = objects.clients;
const jobs = PAIRS.flatMap((pair) => [objects.clients[pair].allowed, objects.clients[pair].denied]);
const allowedJobs = [sameNode.allowed, otherNode.allowed];
const deniedJobs = [sameNode.denied, otherNode.denied];
const podSpecs = [
  objects.server.spec.template.spec,
  objects.anchor.spec,
  ...jobs.map((j) => j.spec.template.spec),
];
const policies = [objects.denyAll, objects.allowClients] as unknown as NetworkPolicyObject[];
const everyObject: ProbeObject[] = [
  objects.namespace,
  objects.server,
  objects.service,
  objects.denyAll,
  objects.allowClients,
  objects.anchor,
  ...jobs,
];
type Template = (typeof jobs)[number]["spec"]["template"];
const labelsOf = (template: Template) => template.metadata?.labels ?? {};

describe("policy probe: objects", () => {
  it("validates every object against the Kubernetes schema", () => {
    for (const object of everyObject) validateKubernetesObject(object);
  });

  it("owns a namespace enforcing the Pod Security restricted profile, holding every other object", () => {
    assert.equal(objects.namespace.metadata.labels["pod-security.kubernetes.io/enforce"], "restricted");
    const others = everyObject.filter((o) => o !== objects.namespace);
    assert.deepEqual(new Set(others.map((o) => o.metadata.namespace)), new Set([PROBE_NAMESPACE]));
  });

  it("runs every pod non-root, read-only, without a token, with requests and limits, on ordinary nodes", () => {
    assert.equal(podSpecs.length, 6, "the server, the anchor and four clients");
    for (const spec of podSpecs) {
      assert.equal(spec?.automountServiceAccountToken, false);
      assert.equal(spec?.securityContext?.runAsNonRoot, true);
      assert.equal(spec?.securityContext?.seccompProfile?.type, "RuntimeDefault");
      assert.equal(spec?.tolerations, undefined, "no toleration: tainted nodes are not ordinary");
      // Never on Fargate, where no calico-node polices the pod.
      assert.deepEqual(
        spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]
          .matchExpressions,
        [{ key: "eks.amazonaws.com/compute-type", operator: "NotIn", values: ["fargate"] }],
      );
      for (const container of spec?.containers ?? []) {
        assert.equal(container.securityContext?.readOnlyRootFilesystem, true);
        assert.equal(container.securityContext?.allowPrivilegeEscalation, false);
        assert.deepEqual(container.securityContext?.capabilities?.drop, ["ALL"]);
        assert.ok(container.resources?.requests?.cpu && container.resources?.limits?.memory);
        assert.equal(container.image, "registry.k8s.io/e2e-test-images/agnhost:2.53");
      }
    }
  });

  it("pulls from calico.probe.registry when set", () => {
    const mirrored = renderProbeObjects({
      ...SETTINGS,
      registry: "123456789012.dkr.ecr.us-west-2.amazonaws.com/e2e",
    });
    assert.equal(
      mirrored.server.spec.template.spec?.containers[0].image,
      "123456789012.dkr.ecr.us-west-2.amazonaws.com/e2e/agnhost:2.53",
    );
  });

  it("fails each client Job on its first failed pod, within calico.probe.timeoutMinutes", () => {
    assert.equal(jobs.length, 4, "two pairs of an allowed and a denied client");
    for (const job of jobs) {
      assert.equal(job.spec.backoffLimit, 0);
      assert.equal(job.spec.activeDeadlineSeconds, 300);
      assert.equal(job.spec.template.spec?.restartPolicy, "Never");
    }
  });
});

describe("policy probe: what the two NetworkPolicies mean", () => {
  const server = { namespace: PROBE_NAMESPACE, labels: labelsOf(objects.server.spec.template) };
  const client = (job: (typeof jobs)[number]) => ({
    namespace: PROBE_NAMESPACE,
    labels: labelsOf(job.spec.template),
  });
  const namespaces = [{ name: PROBE_NAMESPACE, labels: objects.namespace.metadata.labels }];

  it("admits each pair's allowed client on the server's port", () => {
    for (const job of allowedJobs) {
      const verdict = ingressAllowed({ policies, namespaces, server, client: client(job), port: 8080 });
      assert.equal(verdict.allowed, true, verdict.reason);
      assert.match(verdict.reason, /allow-probe-clients/);
    }
  });

  it("denies each pair's denied client, and the allowed clients on any other port", () => {
    for (const job of deniedJobs) {
      assert.equal(
        ingressAllowed({ policies, namespaces, server, client: client(job), port: 8080 }).allowed,
        false,
      );
    }
    for (const job of allowedJobs) {
      assert.equal(
        ingressAllowed({ policies, namespaces, server, client: client(job), port: 9090 }).allowed,
        false,
      );
    }
  });

  it("denies a pod with the allowed label from another namespace", () => {
    const outsider = { namespace: "default", labels: labelsOf(sameNode.allowed.spec.template) };
    assert.equal(
      ingressAllowed({ policies, namespaces, server, client: outsider, port: 8080 }).allowed,
      false,
    );
  });

  it("isolates the server only: no client pod, not the anchor, and nothing outside the probe namespace", () => {
    assert.equal(isolatingPolicies(policies, server).length, 2);
    for (const job of jobs) assert.deepEqual(isolatingPolicies(policies, client(job)), []);
    const anchor = { namespace: PROBE_NAMESPACE, labels: objects.anchor.metadata.labels };
    assert.deepEqual(isolatingPolicies(policies, anchor), []);
    // The same labels in any other namespace are not selected.
    assert.deepEqual(isolatingPolicies(policies, { namespace: "kube-system", labels: server.labels }), []);
    assert.deepEqual(isolatingPolicies(policies, { namespace: "default", labels: {} }), []);
  });
});

describe("policy probe: a cluster whose own policy blocks the clients", () => {
  for (const dns of [true, false]) {
    it(`${dns ? "DNS" : "egress"} blocked by a GlobalNetworkPolicy: the plan fails with "the probe could not run", never "not enforcing"`, async () => {
      const { error } = await evaluateStackExpectingError("dev", {
        simulate: { probeBlocked: { by: "GlobalNetworkPolicy default.deny-all-egress", dns } },
      });
      assert.ok(error instanceof SimulatedFailure, String(error));
      assert.match(error.message, /^allowed-client-[0-9a-f]{8}: the probe could not run: /);
      assert.ok(error.message.includes(dns ? DNS_BLOCKED_MESSAGE : NOT_ALLOWED_MESSAGE), error.message);
      assert.match(error.message, /GlobalNetworkPolicy default\.deny-all-egress/);
      assert.ok(!error.message.includes(NOT_ENFORCING_MESSAGE));
    });
  }
});

describe("policy probe: in the stacks", () => {
  it("runs once calico-node is ready, and exports what each pair's Jobs proved", async () => {
    const evaluation = await evaluated("dev");
    const calico = evaluation.outputs.calico as { policyEnforced: boolean; probe: Record<string, unknown> };
    const names = ofType(evaluation, "kubernetes:batch/v1:Job").map(
      (j) => (j.inputs.metadata as { name: string }).name,
    );
    const id = /^allowed-client-([0-9a-f]{8})$/.exec(names.find((n) => n.startsWith("allowed-")) ?? "")?.[1];
    assert.ok(id !== undefined, names.join(", "));
    assert.deepEqual(names.sort(), [
      `allowed-client-${id}`,
      `denied-client-${id}`,
      `other-node-allowed-client-${id}`,
      `other-node-denied-client-${id}`,
    ]);
    const pair = (prefix: string, node: string) => ({
      node,
      ran: true,
      allowedClient: {
        job: `${prefix}allowed-client-${id}`,
        expected: "connects to the server through allow-probe-clients",
        succeeded: true,
      },
      deniedClient: {
        job: `${prefix}denied-client-${id}`,
        expected: "blocked by default-deny-ingress on every attempt",
        succeeded: true,
      },
    });
    assert.equal(calico.policyEnforced, true);
    assert.deepEqual(calico.probe, {
      namespace: PROBE_NAMESPACE,
      sameNode: pair("", "the server's node"),
      otherNode: pair("other-node-", "a node other than the server's"),
    });
    const component = evaluation.resources.find((r) => r.type === "eks-calico:calico:PolicyProbe");
    assert.ok(component?.parent?.endsWith("::calico"), "a child of the Calico component");
  });

  it("fails the plan with a denied client's message when Calico does not enforce policy", async () => {
    const { error, resources } = await evaluateStackExpectingError("dev", {
      simulate: { policyNotEnforced: true },
    });
    assert.ok(error instanceof SimulatedFailure, String(error));
    assert.match(
      error.message,
      /^(other-node-)?denied-client-[0-9a-f]{8}: a connection the default-deny policy must block got through: Calico is not enforcing policy/,
    );
    for (const name of ["calico-probe-allowed-client", "calico-probe-other-node-probe-allowed-client"]) {
      assert.ok(
        resources.some((r) => r.name === name),
        `${name}: both allowed clients ran first`,
      );
    }
  });

  it("has no probe, and says policy is not proven, when calico.probe.enabled is false", async () => {
    const evaluation = await evaluatedWith("dev", { config: { "eks-calico:calico.probe.enabled": false } });
    assert.deepEqual(
      evaluation.resources.filter((r) => r.type.includes("PolicyProbe") || r.name.includes("-probe-")),
      [],
    );
    const calico = evaluation.outputs.calico as Record<string, unknown>;
    assert.equal(calico.policyEnforced, false);
    assert.equal(calico.probe, undefined);
  });

  const jobNames = async (config: Record<string, unknown>, simulate: ClusterSimulation = {}, stack = "dev") =>
    ofType(await evaluatedWith(stack, { config, simulate }), "kubernetes:batch/v1:Job")
      .map((j) => (j.inputs.metadata as { name: string }).name)
      .sort();

  it("renames its Jobs, so they run again, when something that can change enforcement changes", async () => {
    const base = (await jobNames({})).join();
    for (const change of [
      { "eks-calico:calico.version": "v3.31.6" },
      { "eks-calico:calico.registry": "example.com/calico" },
      { "eks-calico:nodeGroups[0].instanceTypes": ["m6i.large"] },
      { "eks-calico:nodeGroups[0].amiType": "BOTTLEROCKET_x86_64" },
      { "eks-calico:nodeGroups[0].taints": [{ key: "a", value: "b", effect: "PreferNoSchedule" }] },
      { "eks-calico:cluster.version": "1.34" },
      { "eks-calico:calico.probe.registry": "example.com/e2e" },
      // calico-node's rendered pod template (its Typha Service's namespace is in its env).
      { "eks-calico:calico.namespace": "calico-system" },
      { "eks-calico:calico.adopt": true },
    ]) {
      assert.notEqual((await jobNames(change)).join(), base, JSON.stringify(change));
    }
    // The Typha certificates renewed: both reissued, calico-node and Typha restart on them.
    const renewed = await jobNames({}, { certificatesIssuedAt: "2026-06-01T00:00:00Z" });
    assert.notEqual(renewed.join(), base, "a certificate renewal");
    // The VPC CNI's configuration, on a stack that owns the add-on (an existing cluster's, merged).
    const existing = (await jobNames({}, {}, "existing.example")).join();
    const configured = await jobNames(
      {},
      {
        existingCluster: { vpcCni: { managed: true, configurationValues: '{"env":{"WARM_IP_TARGET":"5"}}' } },
      },
      "existing.example",
    );
    assert.notEqual(configured.join(), existing, "another VPC CNI configuration");
    const installer = renderProbeObjects({
      ...SETTINGS,
      enforcementInputs: { ...SETTINGS.enforcementInputs, installer: "operator" },
    });
    for (const pair of PAIRS) {
      for (const access of ["allowed", "denied"] as const) {
        assert.notEqual(
          installer.clients[pair][access].metadata.name,
          objects.clients[pair][access].metadata.name,
        );
      }
    }
    // The run's anchor too, and the other-node clients follow the new one.
    assert.notEqual(installer.anchor.metadata.name, objects.anchor.metadata.name);
    assert.notDeepEqual(
      installer.clients["other-node"].allowed.spec.template.spec?.affinity?.podAffinity,
      otherNode.allowed.spec.template.spec?.affinity?.podAffinity,
    );
  });

  it("marks its Jobs for replacement when they did not complete, so a failed probe runs again on the next up", () => {
    for (const job of jobs) {
      assert.equal(job.metadata.annotations?.[REPLACE_UNREADY_ANNOTATION], "true", job.metadata.name);
    }
    assert.equal(REPLACE_UNREADY_ANNOTATION, "pulumi.com/replaceUnready");
  });

  it("keeps its Jobs when only sizes or tags change", async () => {
    const base = (await jobNames({})).join();
    for (const change of [
      { "eks-calico:nodeGroups[0].desiredSize": 3 },
      { "eks-calico:tags.team": "platform" },
    ]) {
      assert.equal((await jobNames(change)).join(), base, JSON.stringify(change));
    }
  });

  it("judges the Jobs by the policies actually applied: an allow rule open to all fails the denied client", () => {
    const nodes = nodesOfGroup("general", { scalingConfig: { desiredSize: 2 } });
    const calicoNode = {
      type: "kubernetes:apps/v1:DaemonSet",
      inputs: {
        metadata: { name: "calico-node" },
        spec: { template: { spec: { tolerations: [{ operator: "Exists" }] } } },
      },
    };
    // The server's pod bound as the world binds a Deployment's.
    const pods: PlacedPod[] = [];
    applyObject("kubernetes:apps/v1:Deployment", objects.server as never, nodes, {}, [], pods);
    const applied = (allow: unknown): AppliedObject[] => [
      calicoNode,
      { type: "kubernetes:core/v1:Namespace", inputs: objects.namespace as never },
      { type: "kubernetes:apps/v1:Deployment", inputs: objects.server as never },
      { type: "kubernetes:core/v1:Service", inputs: objects.service as never },
      { type: "kubernetes:networking.k8s.io/v1:NetworkPolicy", inputs: objects.denyAll as never },
      { type: "kubernetes:networking.k8s.io/v1:NetworkPolicy", inputs: allow as never },
    ];
    const run = (job: unknown, world: AppliedObject[]) => () =>
      runJob(job as never, world, nodes, {}, [], pods);
    assert.doesNotThrow(run(sameNode.denied, applied(objects.allowClients)));
    const openToAll = { ...objects.allowClients, spec: { ...objects.allowClients.spec, ingress: [{}] } };
    assert.throws(run(sameNode.denied, applied(openToAll)), new RegExp(NOT_ENFORCING_MESSAGE));
    // Without calico-node on the nodes, nothing enforces the policies.
    assert.throws(run(sameNode.denied, applied(objects.allowClients).slice(1)), /calico-node is not ready/);
    // Without a server pod, the same-node client has nowhere to go.
    assert.throws(
      () => runJob(sameNode.allowed as never, applied(objects.allowClients), nodes, {}, []),
      /its pod cannot be scheduled \(0\/2 nodes are available: 2 node\(s\) didn't match pod affinity rules\.\)/,
    );
    // A Job that is not a probe client is not simulated.
    const other = {
      ...sameNode.allowed,
      spec: { ...sameNode.allowed.spec, template: { spec: {} } },
    };
    assert.throws(run(other, applied(objects.allowClients)), /not simulated/);
  });
});
