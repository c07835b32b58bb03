/**
 * The enforcement probe: what its objects are, what its two NetworkPolicies select and admit, and when its
 * Jobs run again. What the client scripts do: test/probe-scripts.test.ts. Where its pairs of clients may
 * run, and the report of a cluster with one eligible node: test/probe-pairs.test.ts. What the Jobs prove
 * is known after up: the real engine runs them on a real scheduler (test/cluster/probe.test.ts).
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
import { CLIENTS, PAIRS } from "../components/calico/probe/clients";
import { type AwsSimulation, KNOWN_AFTER_UP } from "../offline/engine";
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
const jobs = PAIRS.flatMap((pair) => Object.values(objects.clients[pair]));
// The recheck clients are allowed clients run again: the policy admits them.
const allowedJobs = [sameNode.allowed, sameNode.recheck, otherNode.allowed, otherNode.recheck];
const deniedJobs = [sameNode.denied, otherNode.denied];
const podSpecs = [
  objects.server.spec.template.spec,
  objects.anchor.spec,
  ...jobs.map((j) => j.spec.template.spec),
];
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
    assert.equal(podSpecs.length, 8, "the server, the anchor and six clients");
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
    assert.equal(jobs.length, 6, "two pairs of an allowed, a denied and a recheck client");
    for (const job of jobs) {
      assert.equal(job.spec.backoffLimit, 0);
      assert.equal(job.spec.activeDeadlineSeconds, 300);
      assert.equal(job.spec.template.spec?.restartPolicy, "Never");
    }
  });
});

describe("policy probe: what the two NetworkPolicies select and admit", () => {
  // https://kubernetes.io/docs/concepts/services-networking/network-policies/: a pod is isolated for
  // ingress once a policy of its namespace selects it with Ingress in policyTypes; it then admits only
  // what some rule of those policies admits, a rule's peers (a podSelector alone: pods of the policy's own
  // namespace) and its ports both matching.
  const serverLabels = labelsOf(objects.server.spec.template);
  const matches = (selector: { matchLabels?: Record<string, string> }, labels: Record<string, string>) =>
    Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);

  it("isolates the server's pods for ingress, with no rule in the default-deny policy", () => {
    for (const policy of [objects.denyAll, objects.allowClients]) {
      assert.equal(policy.metadata.namespace, PROBE_NAMESPACE);
      assert.deepEqual(policy.spec.policyTypes, ["Ingress"]);
      assert.ok(matches(policy.spec.podSelector, serverLabels), policy.metadata.name);
    }
    assert.equal(objects.denyAll.spec.ingress, undefined, "no rule: admits nothing");
  });

  it("admits, on the server's port only, the pods of the probe namespace that carry the allowed label", () => {
    const [rule, ...others] = objects.allowClients.spec.ingress ?? [];
    assert.deepEqual(others, []);
    // A peer with a podSelector and no namespaceSelector: pods of the policy's namespace only.
    assert.deepEqual(rule.from, [
      { podSelector: { matchLabels: { "eks-calico.io/probe-access": "allowed" } } },
    ]);
    assert.deepEqual(rule.ports, [{ protocol: "TCP", port: 8080 }]);
    const port = objects.server.spec.template.spec?.containers[0].ports?.[0].containerPort;
    assert.equal(port, 8080, "the server listens where the rule admits");
    const peer = rule.from?.[0].podSelector ?? {};
    for (const job of allowedJobs) assert.ok(matches(peer, labelsOf(job.spec.template)), job.metadata.name);
    for (const job of deniedJobs) assert.ok(!matches(peer, labelsOf(job.spec.template)), job.metadata.name);
  });

  it("selects no client and not the anchor: only the server is isolated", () => {
    for (const policy of [objects.denyAll, objects.allowClients]) {
      for (const job of jobs) assert.ok(!matches(policy.spec.podSelector, labelsOf(job.spec.template)));
      assert.ok(!matches(policy.spec.podSelector, objects.anchor.metadata.labels ?? {}));
    }
  });
});

describe("policy probe: in the stacks", () => {
  it("runs once calico-node is ready; what its Jobs prove is known after up", async () => {
    const evaluation = await evaluated("dev");
    const calico = evaluation.outputs.calico as { policyEnforced: unknown; probe: unknown };
    const metadata = ofType(evaluation, "kubernetes:batch/v1:Job").map((j) => j.inputs.metadata);
    const names = metadata
      .filter((m): m is { name: string } => typeof m === "object")
      .map((m) => m.name)
      .sort();
    const id = /^allowed-client-([0-9a-f]{8})$/.exec(names[0] ?? "")?.[1];
    assert.ok(id !== undefined, names.join(", "));
    assert.deepEqual(names, [`allowed-client-${id}`, `denied-client-${id}`, `recheck-client-${id}`]);
    // The other-node Jobs follow where the scheduler places the anchor: known after up, as in a preview.
    assert.deepEqual(
      metadata.filter((m) => typeof m !== "object"),
      [KNOWN_AFTER_UP, KNOWN_AFTER_UP, KNOWN_AFTER_UP],
    );
    assert.equal(calico.policyEnforced, KNOWN_AFTER_UP);
    assert.equal(calico.probe, KNOWN_AFTER_UP);
    const component = evaluation.resources.find((r) => r.type === "eks-calico:calico:PolicyProbe");
    assert.ok(component?.parent?.endsWith("::calico"), "a child of the Calico component");
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

  // The same-node Jobs: the other-node ones are known after up (they follow the anchor's placement).
  const jobNames = async (config: Record<string, unknown>, simulate: AwsSimulation = {}, stack = "dev") =>
    ofType(await evaluatedWith(stack, { config, simulate }), "kubernetes:batch/v1:Job")
      .map((j) => (j.inputs.metadata as { name?: string }).name)
      .filter((name): name is string => name !== undefined)
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
      for (const client of CLIENTS) {
        assert.notEqual(
          installer.clients[pair][client].metadata.name,
          objects.clients[pair][client].metadata.name,
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

  // Every node change, each way: test/probe-nodes.test.ts.
  it("keeps its Jobs when only a size changes", async () => {
    const base = (await jobNames({})).join();
    for (const change of [{ "eks-calico:nodeGroups[0].desiredSize": 3 }]) {
      assert.equal((await jobNames(change)).join(), base, JSON.stringify(change));
    }
  });
});
