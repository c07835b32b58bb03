/**
 * A Calico-only stack for a cluster reached through a kubeconfig file (`cluster.kubeconfig`), through the
 * real program: no AWS resource and no AWS call, a provider holding the file's contents as a secret and
 * identified by the server URL, refusals for bad files, contexts and keys, and the same Calico outputs,
 * probe and policy pack as the other modes.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import YAML from "yaml";
import { withAbsoluteFileReferences } from "../components/kubeconfig-cluster/kubeconfig";
import { diffDocuments } from "../offline/diff";
import {
  type EvaluateOptions,
  KNOWN_AFTER_UP,
  type StackEvaluation,
  evaluateStack,
  evaluateStackExpectingError,
  loadStackConfig,
} from "../offline/engine";
import { resourcesDocument } from "../offline/plan";
import { policies } from "../policy/policies";
import { ConfigError, validateConfig } from "../stacks";
import { kubeconfigFile } from "../stacks/kubeconfig";
import { evaluated, input, one, ofType, providerFor } from "./helpers";
import { runPack } from "./policy-harness";

const STACK = "kubeconfig.example";
const PROVIDER = "pulumi:providers:kubernetes";
const JOB = "kubernetes:batch/v1:Job";

interface Context {
  readonly name: string;
  readonly server: string;
  readonly token?: string;
}

/**
 * A kubeconfig with one cluster and user per context, authenticating with a bearer token; its
 * current-context is the first context, or `current` (null: none).
 */
function kubeconfigText(contexts: readonly Context[], current: string | null = contexts[0].name) {
  return YAML.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: contexts.map((c) => ({ name: `${c.name}-cluster`, cluster: { server: c.server } })),
    contexts: contexts.map((c) => ({
      name: c.name,
      context: { cluster: `${c.name}-cluster`, user: `${c.name}-user` },
    })),
    ...(current === null ? {} : { "current-context": current }),
    users: contexts.map((c) => ({ name: `${c.name}-user`, user: { token: c.token ?? "token-one" } })),
  });
}

const KOPS: Context = { name: "kops", server: "https://api.kops.example.com" };
const LOCAL: Context = { name: "local", server: "https://127.0.0.1:6443" };

describe("kubeconfig stack", () => {
  let dir: string;
  /** Writes `text` to a file of its own; returns its absolute path. */
  const file = (name: string, text: string) => {
    const written = path.join(dir, name);
    fs.writeFileSync(written, text);
    return written;
  };
  /** The example stack pointed at `kubeconfig` (its context dropped unless given), plus other keys. */
  const stackWith = (kubeconfig: Record<string, unknown>, other: Record<string, unknown> = {}) => ({
    "eks-calico:cluster": { kubeconfig: { context: undefined, ...kubeconfig } },
    ...other,
  });
  /** An evaluation, with the token of every invoke the program made. */
  /** A call to a provider: the engine's own built-in functions (the stack's last outputs) are not one. */
  const providerCall = (token: string) => !token.startsWith("pulumi:pulumi:");
  const traced = async (stack: string, options: EvaluateOptions = {}) => {
    const calls: string[] = [];
    const evaluation = await evaluateStack(stack, {
      ...options,
      onCall: (token) => void (providerCall(token) && calls.push(token)),
    });
    return { evaluation, calls };
  };
  /** The problems of a refused evaluation as `path: rule`, what was registered before, and the invokes. */
  const refusal = async (config: Record<string, unknown>) => {
    const calls: string[] = [];
    const { error, resources } = await evaluateStackExpectingError(STACK, {
      config,
      onCall: (token) => void (providerCall(token) && calls.push(token)),
    });
    assert.ok(ConfigError.isConfigError(error), String(error));
    return {
      problems: error.problems.map((p) => `${p.path}: ${p.rule}`),
      values: error.problems.map((p) => p.value),
      types: resources.map((r) => r.type),
      calls,
    };
  };

  let plan: StackEvaluation;
  let planCalls: string[];
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-kubeconfig-"));
    ({ evaluation: plan, calls: planCalls } = await traced(STACK));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("registers no aws: or eks: resource and makes no AWS call, where the other modes make theirs", async () => {
    assert.deepEqual(
      plan.resources.filter((r) => /^(aws|eks):/.test(r.type)).map((r) => r.type),
      [],
    );
    assert.deepEqual(planCalls, [], "no provider call at all: not even the region's availability zones");
    assert.equal(loadStackConfig(STACK).values["aws:region"], undefined, "no aws:region needed");
    // The trace sees invokes: the existing-cluster mode reads its cluster and add-on from AWS.
    const existing = await traced("existing.example");
    assert.deepEqual([...new Set(existing.calls)].sort(), [
      "aws:eks/getAddon:getAddon",
      "aws:eks/getCluster:getCluster",
    ]);
    // An aws:region set anyway is ignored, even one AWS does not have.
    const withRegion = await traced(STACK, { config: { "aws:region": "mars-north-1" } });
    assert.deepEqual(withRegion.calls, []);
    one(withRegion.evaluation, "kubernetes:apps/v1:DaemonSet", "calico-daemonset-calico-node");
  });

  it("claims nothing of the cluster behind the kubeconfig: what Calico reports there is known after up", () => {
    assert.deepEqual(plan.simulated, []);
    const calico = plan.outputs.calico as Record<string, unknown>;
    assert.deepEqual([calico.desired, calico.ready, calico.isReady], Array(3).fill(KNOWN_AFTER_UP));
  });

  it("gives the provider the file's contents as a secret, its context, and the server as identifier", async () => {
    const two = file("two.yaml", kubeconfigText([KOPS, LOCAL]));
    const { evaluation, calls } = await traced(STACK, { config: stackWith({ path: two, context: "local" }) });
    assert.deepEqual(calls, []);
    const provider = one(evaluation, PROVIDER, "cluster");
    assert.equal(input(provider, "kubeconfig"), fs.readFileSync(two, "utf8"));
    assert.deepEqual(provider.secretInputs, ["kubeconfig"]);
    assert.equal(input(provider, "context"), "local");
    assert.equal(input(provider, "clusterIdentifier"), "https://127.0.0.1:6443");
    // The settings every in-cluster provider of this program has (components/cluster/provider.ts).
    assert.equal(String(input(provider, "enableServerSideApply")), "true");
    const component = one(evaluation, "eks-calico:cluster:Kubeconfig", "cluster");
    assert.equal(provider.parent, component.urn);
    const objects = evaluation.resources.filter((r) => r.type.startsWith("kubernetes:"));
    assert.ok(objects.length > 40);
    for (const object of objects)
      assert.equal(object.provider, providerFor(evaluation, provider, object), object.name);
    assert.deepEqual(evaluation.outputs.clusterEndpoint, "https://127.0.0.1:6443");
    assert.deepEqual(evaluation.outputs.kubeconfigContext, "local");
    assert.ok(!JSON.stringify(evaluation.outputs).includes("token-one"), "no credential in the outputs");
  });

  it("uses the file's current-context when no context is set", async () => {
    const current = file("current.yaml", kubeconfigText([KOPS, LOCAL], "kops"));
    const evaluation = await evaluateStack(STACK, { config: stackWith({ path: current }) });
    const provider = one(evaluation, PROVIDER, "cluster");
    assert.equal(input(provider, "context"), "kops");
    assert.equal(input(provider, "clusterIdentifier"), "https://api.kops.example.com");
    assert.equal(evaluation.outputs.kubeconfigContext, "kops");
  });

  it("keeps the identifier and replaces nothing when only the credentials change; another server replaces", async () => {
    const run = async (name: string, context: Context) =>
      evaluateStack(STACK, { config: stackWith({ path: file(name, kubeconfigText([context])) }) });
    const before = await run("before.yaml", KOPS);
    const rotated = await run("rotated.yaml", { ...KOPS, token: "token-two" });
    const elsewhere = await run("elsewhere.yaml", { ...KOPS, server: "https://api.other.example.com" });
    const [was, now] = [one(before, PROVIDER, "cluster"), one(rotated, PROVIDER, "cluster")];
    assert.notEqual(input(was, "kubeconfig"), input(now, "kubeconfig"), "the new token reaches the provider");
    assert.equal(input(now, "clusterIdentifier"), input(was, "clusterIdentifier"));
    assert.deepEqual(
      ofType(rotated, JOB).map((j) => input(j, "metadata.name")),
      ofType(before, JOB).map((j) => input(j, "metadata.name")),
      "the probe does not run again",
    );
    assert.deepEqual(diffDocuments(resourcesDocument(before), resourcesDocument(rotated)).changed, []);

    const moved = diffDocuments(resourcesDocument(before), resourcesDocument(elsewhere));
    const op = (heading: string) => moved.changed.find((r) => r.heading === heading)?.op;
    assert.equal(op(`${PROVIDER} cluster`), "replace");
    assert.equal(op("kubernetes:apps/v1:DaemonSet calico-daemonset-calico-node"), "replace");
    assert.notDeepEqual(
      ofType(elsewhere, JOB).map((j) => input(j, "metadata.name")),
      ofType(before, JOB).map((j) => input(j, "metadata.name")),
      "the probe runs again on another cluster",
    );
  });

  it("exports the other modes' Calico readiness and enforcement outputs, and no kubeconfig", async () => {
    assert.deepEqual(Object.keys(plan.outputs).sort(), ["calico", "clusterEndpoint", "kubeconfigContext"]);
    assert.deepEqual(plan.secretOutputs, []);
    const calico = plan.outputs.calico as Record<string, unknown>;
    for (const other of ["dev", "existing.example"]) {
      const theirs = (await evaluated(other)).outputs.calico as Record<string, unknown>;
      assert.deepEqual(Object.keys(calico).sort(), Object.keys(theirs).sort(), other);
    }
    assert.deepEqual(
      [calico.desired, calico.ready, calico.isReady, calico.policyEnforced],
      Array(4).fill(KNOWN_AFTER_UP),
      "the cluster's nodes and Calico's readiness there are known after up",
    );
  });

  it("passes the policy pack in both install modes", async () => {
    assert.deepEqual(await runPack(policies, plan.resources), []);
    const operator = await evaluateStack(STACK, {
      config: { "eks-calico:calico": { installer: "operator" } },
    });
    assert.equal((operator.outputs.calico as { installer: string }).installer, "operator");
    assert.deepEqual(await runPack(policies, operator.resources), []);
  });

  it("takes over a kubectl-installed Calico through a provider for the same context and cluster", async () => {
    const adopted = await evaluateStack(STACK, { config: { "eks-calico:calico": { adopt: true } } });
    const [ordinary, adopting] = [one(adopted, PROVIDER, "cluster"), one(adopted, PROVIDER, "calico-adopt")];
    for (const key of ["kubeconfig", "context", "clusterIdentifier"]) {
      assert.equal(input(adopting, key), input(ordinary, key), key);
    }
    assert.deepEqual(adopting.secretInputs, ["kubeconfig"]);
    assert.equal(
      one(adopted, "kubernetes:apps/v1:DaemonSet", "calico-daemonset-calico-node").provider,
      adopting.urn,
    );
    for (const job of ofType(adopted, JOB)) assert.equal(job.provider, ordinary.urn, "the probe keeps it");
  });

  it("refuses a missing file, bad YAML and an unknown context at their keys, before any resource", async () => {
    const missing = path.join(dir, "absent.yaml");
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ path: missing }, /^cluster\.kubeconfig\.path: names no file: .*absent\.yaml does not exist$/],
      [
        { path: file("bad.yaml", "clusters: [unclosed\n") },
        /^cluster\.kubeconfig\.path: names .*bad\.yaml, which is no kubeconfig: /,
      ],
      [
        { path: file("list.yaml", "- not\n- a kubeconfig\n") },
        /^cluster\.kubeconfig\.context: is required: .*list\.yaml has no current-context; its contexts: none$/,
      ],
      [
        { path: file("ok.yaml", kubeconfigText([KOPS, LOCAL])), context: "nope" },
        /^cluster\.kubeconfig\.context: names no context of .*ok\.yaml; its contexts: kops, local$/,
      ],
      [
        { path: file("no-current.yaml", kubeconfigText([KOPS], null)) },
        /^cluster\.kubeconfig\.context: is required: .*no-current\.yaml has no current-context; its contexts: kops$/,
      ],
      [
        { path: file("stale.yaml", kubeconfigText([KOPS], "gone")) },
        /^cluster\.kubeconfig\.path: names .*stale\.yaml, which has no context "gone"; its contexts: kops$/,
      ],
      [
        { path: file("stale-beside.yaml", kubeconfigText([KOPS], "gone")), context: "kops" },
        /^cluster\.kubeconfig\.path: names .*stale-beside\.yaml, whose current-context "gone" is none of its contexts: the Kubernetes provider refuses it even with cluster\.kubeconfig\.context set$/,
      ],
      [{ path: undefined }, /^cluster\.kubeconfig\.path: is required$/],
    ];
    for (const [kubeconfig, expected] of cases) {
      const refused = await refusal(stackWith(kubeconfig));
      assert.equal(refused.problems.length, 1, refused.problems.join("\n"));
      assert.match(refused.problems[0], expected);
      assert.deepEqual(refused.types, ["pulumi:pulumi:Stack"], "refused before any resource");
      assert.deepEqual(refused.calls, []);
    }
    const bad = await refusal(stackWith({ path: missing, context: "nope" }));
    assert.deepEqual(bad.values, [missing], "the bad value, as written in the stack file");
  });

  it("keeps a --secret cluster key secret: in the outputs that hold it, and out of its problems", async () => {
    const secret = await evaluateStack(STACK, { secrets: ["eks-calico:cluster"] });
    // The example's server URL holds its context's name (api.example.k8s.local), so it is secret too.
    assert.deepEqual(secret.secretOutputs, ["clusterEndpoint", "kubeconfigContext"]);
    const missing = path.join(dir, "hidden", "absent.yaml");
    const { error } = await evaluateStackExpectingError(STACK, {
      config: stackWith({ path: missing }),
      secrets: ["eks-calico:cluster"],
    });
    assert.ok(ConfigError.isConfigError(error), String(error));
    assert.deepEqual(
      error.problems.map((p) => [p.path, p.value, p.rule]),
      [["cluster.kubeconfig.path", "[secret]", "names no file: the file does not exist"]],
    );
    assert.ok(!error.message.includes("hidden"), error.message);
  });

  it("refuses keys for what it does not create, cluster.existing beside it, and a bad file, all at once", async () => {
    const { problems, types, calls } = await refusal({
      "eks-calico:network": { cidr: "10.0.0.0/16" },
      "eks-calico:nodeGroups": [],
      "eks-calico:tags": { team: "platform" },
      "eks-calico:protect": true,
      "eks-calico:cluster": {
        version: "1.35",
        publicAccessCidrs: [],
        addons: {},
        access: [],
        existing: { name: "platform-prod", maxNodes: 20 },
        kubeconfig: { path: path.join(dir, "absent.yaml"), maxNodes: 10, vpcCniConfigured: false },
      },
      "eks-calico:calico": { version: "v2.0.0" },
    });
    const paths = problems.map((p) => p.split(": ")[0]);
    for (const key of [
      "network",
      "nodeGroups",
      "tags",
      "protect",
      "cluster.version",
      "cluster.publicAccessCidrs",
      "cluster.addons",
      "cluster.access",
    ]) {
      assert.ok(
        problems.includes(`${key}: must not be set with cluster.kubeconfig: ${whyRefused(key)}`),
        `${key} in\n${problems.join("\n")}`,
      );
    }
    assert.ok(paths.includes("cluster.kubeconfig"), "refused beside cluster.existing");
    assert.match(problems.join("\n"), /cluster\.kubeconfig: must not be set with cluster\.existing/);
    assert.ok(paths.includes("cluster.kubeconfig.path"), "the missing file");
    assert.ok(paths.includes("cluster.kubeconfig.vpcCniConfigured"), "the VPC CNI not stated configured");
    assert.ok(paths.includes("calico.version"), "and the other keys' problems");
    assert.ok(!paths.includes("aws:region"), "a kubeconfig stack needs no region");
    assert.deepEqual(types, ["pulumi:pulumi:Stack"]);
    assert.deepEqual(calls, []);
  });

  it("refuses a VPC CNI not stated configured, saying what to change, and requires maxNodes", () => {
    const refused = validateConfig({ cluster: { kubeconfig: { path: "~/.kube/config" } } });
    assert.ok(!refused.ok);
    assert.deepEqual(
      refused.problems.map((p) => `${p.path}: ${p.rule}`),
      [
        "cluster.kubeconfig.maxNodes: is required",
        "cluster.kubeconfig.vpcCniConfigured: is false, and a kubeconfig stack can neither see nor configure the cluster's VPC CNI (aws-node): it must be stated configured",
      ],
    );
    assert.match(
      refused.problems[1].hint ?? "",
      /ANNOTATE_POD_IP=true .*set cluster\.kubeconfig\.vpcCniConfigured: true$/,
    );
    assert.ok(
      validateConfig({ cluster: { kubeconfig: { path: "k", maxNodes: 3, vpcCniConfigured: true } } }).ok,
    );
  });

  it("expands ~ to the home directory and reads other relative paths from the project directory", () => {
    assert.equal(kubeconfigFile("~/.kube/config", "/project"), path.join(os.homedir(), ".kube", "config"));
    assert.equal(kubeconfigFile("~", "/project"), os.homedir());
    assert.equal(kubeconfigFile("kube/config", "/project"), "/project/kube/config");
    assert.equal(kubeconfigFile("/etc/kubeconfig", "/project"), "/etc/kubeconfig");
  });

  it("reads files the kubeconfig names beside it, as kubectl does, and gives the provider their absolute paths", async () => {
    const sub = path.join(dir, "relative");
    fs.mkdirSync(path.join(sub, "keys"), { recursive: true });
    fs.writeFileSync(path.join(sub, "token"), "token-from-file");
    const text = [
      "# comments and layout are kept",
      "clusters:",
      "- {name: c, cluster: {server: 'https://k.example.com', insecure-skip-tls-verify: true}}",
      "contexts: [{name: x, context: {cluster: c, user: u}}]",
      "current-context: x",
      "users:",
      "- name: u",
      "  user:",
      "    tokenFile: token",
      "    exec: {command: ./bin/plugin, apiVersion: client.authentication.k8s.io/v1beta1}",
      "",
    ].join("\n");
    const kubeconfig = path.join(sub, "kubeconfig");
    fs.writeFileSync(kubeconfig, text);
    const { evaluation } = await traced(STACK, { config: stackWith({ path: kubeconfig }) });
    const given = String(input(one(evaluation, PROVIDER, "cluster"), "kubeconfig"));
    assert.equal(
      given,
      text
        .replace("tokenFile: token", `tokenFile: ${JSON.stringify(path.join(sub, "token"))}`)
        .replace("command: ./bin/plugin", `command: ${JSON.stringify(path.join(sub, "bin", "plugin"))}`),
    );
    assert.equal(withAbsoluteFileReferences(given, "/elsewhere"), given, "absolute references stay");
    // A token file that cannot be read is refused, as client-go refuses it.
    fs.rmSync(path.join(sub, "token"));
    const refused = await refusal(stackWith({ path: kubeconfig }));
    assert.deepEqual(refused.problems, [
      `cluster.kubeconfig.path: names ${kubeconfig}, which has user "u" whose tokenFile cannot be read: ENOENT: no such file or directory, open '${path.join(sub, "token")}'`,
    ]);
    assert.deepEqual(refused.types, ["pulumi:pulumi:Stack"], "refused before any resource");
  });
});

/** Why a kubeconfig stack refuses a key (stacks/schema/modes.ts), as the tests expect it worded. */
function whyRefused(key: string): string {
  if (key === "network") return "the cluster's network already exists";
  if (key === "nodeGroups") return "the cluster's nodes are managed where the cluster was made";
  if (key === "tags") return "the stack creates no AWS resource to tag";
  if (key === "protect") return "the stack creates no AWS resource to protect";
  return "this stack does not manage the cluster itself";
}
