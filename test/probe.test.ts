/**
 * The enforcement probe: what its objects are, what its two NetworkPolicies mean, what its client
 * scripts do, when its Jobs run again, and what the offline world concludes from them.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  DEFAULT_PROBE_REGISTRY,
  PROBE_NAMESPACE,
  type ProbeObject,
  type ProbeSettings,
  REPLACE_UNREADY_ANNOTATION,
  renderProbeObjects,
} from "../components/calico/probe/objects";
import {
  COULD_NOT_RUN,
  DNS_BLOCKED_MESSAGE,
  NOT_ALLOWED_MESSAGE,
  NOT_ENFORCING_MESSAGE,
  allowedClientScript,
  deniedClientScript,
} from "../components/calico/probe/script";
import { type ClusterSimulation, evaluateStackExpectingError, SimulatedFailure } from "../offline/engine";
import { type AppliedObject, runJob } from "../offline/world/jobs";
import { nodesOfGroup } from "../offline/world/nodes";
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
const jobs = [objects.allowedClient, objects.deniedClient];
const pods = [objects.server.spec.template, ...jobs.map((j) => j.spec.template)];
const policies = [objects.denyAll, objects.allowClients] as unknown as NetworkPolicyObject[];
const everyObject: ProbeObject[] = [
  objects.namespace,
  objects.server,
  objects.service,
  objects.denyAll,
  objects.allowClients,
  ...jobs,
];
const labelsOf = (template: (typeof pods)[number]) => template.metadata?.labels ?? {};

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
    for (const template of pods) {
      const spec = template.spec;
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
    for (const job of jobs) {
      assert.equal(job.spec.backoffLimit, 0);
      assert.equal(job.spec.activeDeadlineSeconds, 300);
      assert.equal(job.spec.template.spec?.restartPolicy, "Never");
    }
  });
});

describe("policy probe: what the two NetworkPolicies mean", () => {
  const server = { namespace: PROBE_NAMESPACE, labels: labelsOf(objects.server.spec.template) };
  const client = (template: (typeof pods)[number]) => ({
    namespace: PROBE_NAMESPACE,
    labels: labelsOf(template),
  });
  const namespaces = [{ name: PROBE_NAMESPACE, labels: objects.namespace.metadata.labels }];

  it("admits the allowed client on the server's port", () => {
    const verdict = ingressAllowed({ policies, namespaces, server, client: client(pods[1]), port: 8080 });
    assert.equal(verdict.allowed, true, verdict.reason);
    assert.match(verdict.reason, /allow-probe-clients/);
  });

  it("denies the denied client, and the allowed client on any other port", () => {
    assert.equal(
      ingressAllowed({ policies, namespaces, server, client: client(pods[2]), port: 8080 }).allowed,
      false,
    );
    assert.equal(
      ingressAllowed({ policies, namespaces, server, client: client(pods[1]), port: 9090 }).allowed,
      false,
    );
  });

  it("denies a pod with the allowed label from another namespace", () => {
    const outsider = { namespace: "default", labels: labelsOf(pods[1]) };
    assert.equal(
      ingressAllowed({ policies, namespaces, server, client: outsider, port: 8080 }).allowed,
      false,
    );
  });

  it("isolates the server only: no client pod, and nothing outside the probe namespace", () => {
    assert.equal(isolatingPolicies(policies, server).length, 2);
    for (const template of pods.slice(1)) assert.deepEqual(isolatingPolicies(policies, client(template)), []);
    // The same labels in any other namespace are not selected.
    assert.deepEqual(isolatingPolicies(policies, { namespace: "kube-system", labels: server.labels }), []);
    assert.deepEqual(isolatingPolicies(policies, { namespace: "default", labels: {} }), []);
  });
});

/** Runs a client script with a stand-in for `agnhost connect`, no pauses, and a local termination log. */
function runScript(script: string, connect: string): { status: number | null; message: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "probe-"));
  try {
    const stub = path.join(dir, "agnhost");
    fs.writeFileSync(stub, `#!/bin/sh\n${connect}\n`, { mode: 0o755 });
    const log = path.join(dir, "termination-log");
    const local = script
      .replaceAll("/agnhost", stub)
      .replaceAll("/dev/termination-log", log)
      .replace(/sleep \d+/g, "true");
    const result = spawnSync("/bin/sh", ["-c", local], {
      env: { TARGET: "server:80", PATH: process.env.PATH },
    });
    return { status: result.status, message: fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim() : "" };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("policy probe: the client scripts", () => {
  it("the denied client fails with the message `pulumi up` shows when a connection gets through", () => {
    const run = runScript(deniedClientScript(), "exit 0");
    assert.equal(run.status, 1);
    assert.ok(run.message.startsWith(NOT_ENFORCING_MESSAGE), run.message);
  });

  it("the denied client succeeds only when every attempt times out", () => {
    const run = runScript(deniedClientScript(), 'echo "TIMEOUT"; exit 1');
    assert.equal(run.status, 0);
    assert.match(run.message, /blocked on all 5 attempts/);
  });

  it("the denied client cannot tell from a refused connection, and says the probe could not run", () => {
    const run = runScript(deniedClientScript(), 'echo "REFUSED"; exit 1');
    assert.equal(run.status, 2);
    assert.ok(run.message.startsWith(`${COULD_NOT_RUN}: `), run.message);
    assert.match(run.message, /cannot tell whether policy blocked it/);
  });

  it("either client blocked from DNS says the probe could not run and why, never 'not enforcing'", () => {
    // agnhost connect prints `DNS: <error>` when the name does not resolve (test/images/agnhost/connect).
    const dns = 'echo "DNS: lookup server on 10.96.0.10:53: read udp: i/o timeout"; exit 1';
    for (const script of [allowedClientScript(), deniedClientScript()]) {
      const run = runScript(script, dns);
      assert.equal(run.status, 3, run.message);
      assert.ok(run.message.startsWith(DNS_BLOCKED_MESSAGE), run.message);
      assert.ok(!run.message.includes(NOT_ENFORCING_MESSAGE));
    }
  });

  it("an allowed client that never connects says the probe could not run, naming a blocking policy as a cause", () => {
    const run = runScript(
      allowedClientScript().replace(/deadline=.*/, "deadline=0"),
      'echo "TIMEOUT"; exit 1',
    );
    assert.equal(run.status, 1, run.message);
    assert.ok(run.message.startsWith(NOT_ALLOWED_MESSAGE), run.message);
    assert.match(run.message, /^the probe could not run: .*GlobalNetworkPolicy/);
  });

  it("the allowed client retries until it connects", () => {
    // Fails twice, then connects: a counter file beside the stub.
    const run = runScript(
      allowedClientScript(),
      'f="$(dirname "$0")/n"; n=$(cat "$f" 2>/dev/null || echo 0); echo $((n + 1)) > "$f"; [ "$n" -ge 2 ] || { echo TIMEOUT; exit 1; }',
    );
    assert.equal(run.status, 0, run.message);
    assert.match(run.message, /connected to server:80 on attempt 3/);
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
  it("runs once calico-node is ready, and exports what each Job proved", async () => {
    const evaluation = await evaluated("dev");
    const calico = evaluation.outputs.calico as { policyEnforced: boolean; probe: Record<string, unknown> };
    const names = ofType(evaluation, "kubernetes:batch/v1:Job").map(
      (j) => (j.inputs.metadata as { name: string }).name,
    );
    assert.equal(calico.policyEnforced, true);
    assert.deepEqual(calico.probe, {
      namespace: PROBE_NAMESPACE,
      allowedClient: {
        job: names.find((n) => n.startsWith("allowed-client-")),
        expected: "connects to the server through allow-probe-clients",
        succeeded: true,
      },
      deniedClient: {
        job: names.find((n) => n.startsWith("denied-client-")),
        expected: "blocked by default-deny-ingress on every attempt",
        succeeded: true,
      },
    });
    const component = evaluation.resources.find((r) => r.type === "eks-calico:calico:PolicyProbe");
    assert.ok(component?.parent?.endsWith("::calico"), "a child of the Calico component");
  });

  it("fails the plan with the denied client's message when Calico does not enforce policy", async () => {
    const { error, resources } = await evaluateStackExpectingError("dev", {
      simulate: { policyNotEnforced: true },
    });
    assert.ok(error instanceof SimulatedFailure, String(error));
    assert.match(
      error.message,
      /^denied-client-[0-9a-f]{8}: a connection the default-deny policy must block got through: Calico is not enforcing policy/,
    );
    assert.ok(
      resources.some((r) => r.name === "calico-probe-allowed-client"),
      "the allowed client ran first",
    );
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
    assert.notEqual(installer.allowedClient.metadata.name, objects.allowedClient.metadata.name);
  });

  it("marks its Jobs for replacement when they did not complete, so a failed probe runs again on the next up", () => {
    for (const job of [objects.allowedClient, objects.deniedClient]) {
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
    const applied = (allow: unknown): AppliedObject[] => [
      calicoNode,
      { type: "kubernetes:core/v1:Namespace", inputs: objects.namespace as never },
      { type: "kubernetes:apps/v1:Deployment", inputs: objects.server as never },
      { type: "kubernetes:core/v1:Service", inputs: objects.service as never },
      { type: "kubernetes:networking.k8s.io/v1:NetworkPolicy", inputs: objects.denyAll as never },
      { type: "kubernetes:networking.k8s.io/v1:NetworkPolicy", inputs: allow as never },
    ];
    const run = (job: unknown, world: AppliedObject[]) => () => runJob(job as never, world, nodes, {}, []);
    assert.doesNotThrow(run(objects.deniedClient, applied(objects.allowClients)));
    const openToAll = { ...objects.allowClients, spec: { ...objects.allowClients.spec, ingress: [{}] } };
    assert.throws(run(objects.deniedClient, applied(openToAll)), new RegExp(NOT_ENFORCING_MESSAGE));
    // Without calico-node on the nodes, nothing enforces the policies.
    assert.throws(
      run(objects.deniedClient, applied(objects.allowClients).slice(1)),
      /calico-node is not ready/,
    );
    // A Job that is not a probe client is not simulated.
    const other = {
      ...objects.allowedClient,
      spec: { ...objects.allowedClient.spec, template: { spec: {} } },
    };
    assert.throws(run(other, applied(objects.allowClients)), /not simulated/);
  });
});
