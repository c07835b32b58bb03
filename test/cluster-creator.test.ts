/**
 * The cluster's creator (stacks/creator.ts): the first update records it as the `clusterCreator` output
 * from the caller identity (an assumed-role session turned into its role), later updates read it back from
 * the last outputs, and a `cluster.access` entry for the same principal (any case, any path) is refused
 * before any resource: EKS made the creator admin through an access entry of its own and refuses a second.
 * The record belongs to one cluster: a rename or a region change that would replace it is refused
 * (stacks/deployed-cluster.ts), and a cluster deleted outside Pulumi gets the caller that creates it again.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { BOOTSTRAP_ADMIN, callerPrincipalArn, samePrincipal } from "../components/cluster/access";
import {
  type EvaluateOptions,
  PROJECT_ROOT,
  type StackEvaluation,
  evaluateStackExpectingError,
} from "../offline/engine";
import { ConfigError } from "../stacks";
import { clusterCreator, creatorAccessProblems } from "../stacks/creator";
import { evaluatedWith as evaluatedAs, ofType, stackValue, withWarnings } from "./helpers";

/**
 * The program as `pulumi up` runs it, unless told `preview: true`: only an update records the creator (a
 * preview of a new stack does not know who runs the first `up`).
 */
const evaluatedWith = (stack: string, options: EvaluateOptions) =>
  evaluatedAs(stack, { preview: false, ...options });
const evaluated = (stack: string) => evaluatedWith(stack, {});

const ENTRY = "aws:eks/accessEntry:AccessEntry";
const CALLER_IDENTITY = "aws:index/getCallerIdentity:getCallerIdentity";
const GET_CLUSTER = "aws:eks/getCluster:getCluster";
/** The offline world's caller, as the role EKS makes the creator's entry for. */
const CREATOR = "arn:aws:iam::000000000000:role/offline-deployer";
const ADMINS = "arn:aws:iam::123456789012:role/platform-admins";

function withAccess(access: string[], previousOutputs?: Record<string, unknown>) {
  return {
    config: {
      "eks-calico:cluster": {
        ...stackValue<object>("dev", "cluster"),
        access: access.map((principalArn) => ({ principalArn, level: "admin" })),
      },
    },
    ...(previousOutputs === undefined ? {} : { previousOutputs }),
  };
}

/** dev's outputs after a first update, as the next update reads them, with `clusterCreator` replaced. */
async function deployedDev(clusterCreatorOutput: string | undefined): Promise<Record<string, unknown>> {
  const outputs = Object.fromEntries(
    Object.entries((await evaluated("dev")).outputs).filter(([name]) => name !== "clusterCreator"),
  );
  return clusterCreatorOutput === undefined ? outputs : { ...outputs, clusterCreator: clusterCreatorOutput };
}

async function refusal(options: EvaluateOptions) {
  const { error, resources } = await evaluateStackExpectingError("dev", { preview: false, ...options });
  assert.ok(ConfigError.isConfigError(error), String(error));
  assert.deepEqual(
    resources.filter((r) => r.custom),
    [],
    "refused before any resource",
  );
  return error;
}

describe("the cluster's creator", () => {
  it("turns a caller identity into its principal: an assumed-role session becomes its role", () => {
    assert.equal(
      callerPrincipalArn("arn:aws:sts::123456789012:assumed-role/GitHubDeploy/pulumi-up-dev"),
      "arn:aws:iam::123456789012:role/GitHubDeploy",
    );
    assert.equal(
      callerPrincipalArn("arn:aws-cn:sts::123456789012:assumed-role/ops/session"),
      "arn:aws-cn:iam::123456789012:role/ops",
    );
    for (const unchanged of ["arn:aws:iam::123456789012:user/ci/alice", "arn:aws:iam::123456789012:root"]) {
      assert.equal(callerPrincipalArn(unchanged), unchanged);
    }
  });

  it("compares principals as EKS counts entries: partition, account, kind, name in any case and path", () => {
    const role = "arn:aws:iam::123456789012:role/GitHubDeploy";
    for (const same of [
      role,
      "arn:aws:iam::123456789012:role/githubdeploy",
      "arn:aws:iam::123456789012:role/ci/GitHubDeploy",
      "arn:aws:sts::123456789012:assumed-role/GitHubDeploy/pulumi-up-dev",
    ]) {
      assert.ok(samePrincipal(role, same), same);
      assert.ok(samePrincipal(same, role), same);
    }
    for (const other of [
      "arn:aws:iam::123456789012:role/GitHubDeploy2",
      "arn:aws:iam::210987654321:role/GitHubDeploy",
      "arn:aws-us-gov:iam::123456789012:role/GitHubDeploy",
      "arn:aws:iam::123456789012:user/GitHubDeploy",
    ]) {
      assert.ok(!samePrincipal(role, other), other);
    }
  });

  it("is recorded as clusterCreator by a stack's first update, from the caller identity", async () => {
    const evaluation = await evaluated("dev");
    assert.equal(evaluation.outputs.clusterCreator, CREATOR);
    const [first] = evaluation.outputs.clusterAccess as { principal: string; grantedBy: string }[];
    assert.deepEqual(first, { principal: CREATOR, level: "admin", grantedBy: BOOTSTRAP_ADMIN.grantedBy });
  });

  it("is read back from the last outputs on later updates, whoever runs them, without asking AWS", async () => {
    const recorded = "arn:aws:iam::123456789012:role/PlatformBootstrap";
    const calls: string[] = [];
    const evaluation = await evaluatedWith("dev", {
      previousOutputs: await deployedDev(recorded),
      onCall: (token) => calls.push(token),
    });
    assert.equal(evaluation.outputs.clusterCreator, recorded);
    assert.ok(!calls.includes(CALLER_IDENTITY), calls.join(", "));
    // A creator recorded as a session ARN is carried as its role.
    const session = await evaluatedWith("dev", {
      previousOutputs: await deployedDev("arn:aws:sts::123456789012:assumed-role/PlatformBootstrap/s"),
    });
    assert.equal(session.outputs.clusterCreator, recorded);
  });

  for (const [what, listed] of [
    ["the same role ARN", CREATOR],
    ["its name in another case", CREATOR.replace("offline-deployer", "OFFLINE-DEPLOYER")],
    ["its name with a path", CREATOR.replace("role/", "role/ci/github/")],
  ] as const) {
    it(`refuses the creator in cluster.access (${what}), before any resource`, async () => {
      const error = await refusal(withAccess([ADMINS, listed]));
      assert.deepEqual(
        error.problems.map((p) => [p.path, p.value]),
        [["cluster.access[1].principalArn", listed]],
      );
      assert.match(
        error.problems[0].rule,
        /is the cluster's creator \(arn:aws:iam::000000000000:role\/offline-deployer/,
      );
      assert.match(error.problems[0].rule, /EKS refuses a second access entry for the same principal/);
      assert.match(error.problems[0].hint ?? "", /remove it from cluster\.access/);
    });
  }

  it("refuses the role of a creator that ran as an assumed-role session, on a later update", async () => {
    const previousOutputs = await deployedDev("arn:aws:sts::123456789012:assumed-role/Deployer/pulumi-up");
    const error = await refusal(withAccess(["arn:aws:iam::123456789012:role/ci/deployer"], previousOutputs));
    assert.deepEqual(
      error.problems.map((p) => p.path),
      ["cluster.access[0].principalArn"],
    );
  });

  it("accepts other principals: another role, the same name in another account", async () => {
    const others = [
      "arn:aws:iam::000000000000:role/offline-deployer-ci",
      "arn:aws:iam::123456789012:role/offline-deployer",
    ];
    const evaluation: StackEvaluation = await evaluatedWith("dev", withAccess(others));
    assert.deepEqual(
      ofType(evaluation, ENTRY).map((e) => e.inputs.principalArn),
      others,
    );
  });

  it("is unknown, and refuses nothing, for a stack deployed before the output existed", async () => {
    const evaluation = await evaluatedWith("dev", withAccess([CREATOR], await deployedDev(undefined)));
    assert.equal(evaluation.outputs.clusterCreator, undefined);
    assert.equal(
      (evaluation.outputs.clusterAccess as { principal: string }[])[0].principal,
      BOOTSTRAP_ADMIN.principal,
    );
    assert.equal(ofType(evaluation, ENTRY).length, 1);
  });

  it("is unknown in a preview of a stack never deployed: the previewing identity is not the deployer", async () => {
    assert.deepEqual(await clusterCreator({}, "c", true), { notices: [] });
    // A recorded creator is carried only with the cluster it created: these outputs name none.
    assert.deepEqual(await clusterCreator({ clusterCreator: CREATOR }, "c", true), { notices: [] });
    assert.deepEqual(creatorAccessProblems(undefined, [{ principalArn: CREATOR }]), []);
  });

  it("is read back in a preview of a deployed stack whose cluster AWS has", async () => {
    const recorded = "arn:aws:iam::123456789012:role/PlatformBootstrap";
    const previousOutputs = await deployedDev(recorded);
    const { result, warnings } = await withWarnings(() =>
      evaluatedWith("dev", { previousOutputs, preview: true }),
    );
    assert.equal(result.outputs.clusterCreator, recorded);
    assert.deepEqual(warnings, []);
  });

  it("asks AWS whether the cluster exists, on a first update and on every later one", async () => {
    const first: string[] = [];
    await evaluatedWith("dev", { onCall: (token) => first.push(token) });
    assert.ok(first.includes(GET_CLUSTER), first.join(", "));
    const later: string[] = [];
    await evaluatedWith("dev", {
      previousOutputs: await deployedDev(undefined),
      onCall: (t) => later.push(t),
    });
    assert.ok(later.includes(GET_CLUSTER), later.join(", "));
  });

  it("records nothing, and refuses nothing, when the cluster exists before any output (a failed first up)", async () => {
    // A first `up` that created the cluster and failed wrote no outputs; the retry may be another identity.
    const calls: string[] = [];
    const evaluation = await evaluatedWith("dev", {
      ...withAccess([CREATOR]),
      simulate: { stackClusterExists: true },
      onCall: (token) => calls.push(token),
    });
    assert.equal(evaluation.outputs.clusterCreator, undefined);
    assert.equal(
      (evaluation.outputs.clusterAccess as { principal: string }[])[0].principal,
      BOOTSTRAP_ADMIN.principal,
    );
    assert.deepEqual(
      ofType(evaluation, ENTRY).map((e) => e.inputs.principalArn),
      [CREATOR],
    );
    assert.ok(!calls.includes(CALLER_IDENTITY), calls.join(", "));
  });

  it("records nothing for a cluster made elsewhere", async () => {
    for (const stack of ["existing.example", "kubeconfig.example"]) {
      assert.equal((await evaluated(stack)).outputs.clusterCreator, undefined, stack);
    }
  });

  it("documents the creator, its output and the refusal in docs/access.md", () => {
    const text = fs.readFileSync(path.join(PROJECT_ROOT, "docs", "access.md"), "utf8");
    assert.match(text, /`clusterCreator`/);
    assert.match(text, /refuse/);
  });
});

describe("the cluster's creator across a cluster replacement", () => {
  const RECORDED = "arn:aws:iam::123456789012:role/PlatformBootstrap";
  const CALLER = "arn:aws:iam::000000000000:role/offline-deployer";

  /** dev's outputs as the next update reads them, with some replaced: what a renamed or moved stack sees. */
  async function deployedWith(changes: Record<string, unknown>): Promise<Record<string, unknown>> {
    return { ...(await deployedDev(RECORDED)), ...changes };
  }

  it("refuses a renamed stack, before any resource and before asking who created the cluster", async () => {
    // Deployed as stack "qa" (cluster eks-calico-qa), now run as "dev".
    const calls: string[] = [];
    const error = await refusal({
      previousOutputs: await deployedWith({ clusterName: "eks-calico-qa" }),
      onCall: (token) => calls.push(token),
    });
    assert.deepEqual(
      error.problems.map((p) => [p.path, p.value]),
      [["(stack name)", "dev"]],
    );
    const [problem] = error.problems;
    assert.equal(
      problem.rule,
      'derives the EKS cluster name "eks-calico-dev", but the stack\'s deployed cluster is "eks-calico-qa": a cluster\'s name cannot change (aws_eks_cluster name is ForceNew), so this update would create a new cluster and delete "eks-calico-qa" with every workload in it',
    );
    assert.match(problem.hint ?? "", /^rename the stack back: `pulumi stack rename qa`/);
    assert.match(problem.hint ?? "", /docs\/stacks\.md#renaming-a-stack-or-changing-its-region/);
    assert.match(problem.steps?.at(-1) ?? "", /`pulumi destroy --stack <stack>`.*docs\/destroy\.md/);
    assert.ok(!calls.includes(GET_CLUSTER) && !calls.includes(CALLER_IDENTITY), calls.join(", "));
  });

  it("refuses a renamed project the same way, naming the project", async () => {
    const error = await refusal({ previousOutputs: await deployedWith({ clusterName: "platform-dev" }) });
    assert.deepEqual(
      error.problems.map((p) => [p.path, p.value]),
      [["(project name)", "eks-calico"]],
    );
    assert.match(error.problems[0].rule, /but the stack's deployed cluster is "platform-dev"/);
    assert.match(
      error.problems[0].hint ?? "",
      /`pulumi stack rename <org>\/platform\/dev`, and its name in Pulumi\.yaml/,
    );
  });

  it("refuses a new aws:region on a deployed stack: its cluster cannot move", async () => {
    const error = await refusal({ previousOutputs: await deployedWith({ region: "eu-west-1" }) });
    assert.deepEqual(
      error.problems.map((p) => [p.path, p.value]),
      [["aws:region", "us-west-2"]],
    );
    assert.equal(
      error.problems[0].rule,
      'cannot change on a deployed stack (its cluster "eks-calico-dev" is in eu-west-1): an EKS cluster cannot move to another region, so this update would create a new cluster, VPC and node groups in us-west-2 and delete those in eu-west-1 with every workload in them',
    );
    assert.match(
      error.problems[0].hint ?? "",
      /^set it back to eu-west-1 \(`pulumi config set aws:region eu-west-1`\)/,
    );
  });

  it("refuses a rename and a region change at once", async () => {
    const error = await refusal({
      previousOutputs: await deployedWith({ clusterName: "eks-calico-qa", region: "eu-west-1" }),
    });
    assert.deepEqual(
      error.problems.map((p) => p.path),
      ["(stack name)", "aws:region"],
    );
  });

  it("is this update's caller when the cluster was deleted outside Pulumi, with a warning naming both", async () => {
    const { result, warnings } = await withWarnings(async () =>
      evaluatedWith("dev", {
        previousOutputs: await deployedDev(RECORDED),
        simulate: { stackClusterExists: false },
      }),
    );
    assert.equal(result.outputs.clusterCreator, CALLER);
    assert.deepEqual(
      (result.outputs.clusterAccess as { principal: string }[]).map((a) => a.principal).slice(0, 1),
      [CALLER],
    );
    assert.deepEqual(warnings, [
      "clusterCreator: EKS has no cluster eks-calico-dev, though the stack's last update left it: it was deleted outside Pulumi, and this update creates it again: EKS makes its caller, arn:aws:iam::000000000000:role/offline-deployer, the creator, in place of arn:aws:iam::123456789012:role/PlatformBootstrap, and clusterCreator records it. Pulumi creates the cluster only once its state no longer holds it: run `pulumi up --refresh`",
    ]);
  });

  it("refuses the new creator in cluster.access when the cluster is created again (a listed CI role)", async () => {
    const previousOutputs = await deployedDev(RECORDED);
    const { result: error } = await withWarnings(() =>
      refusal({
        ...withAccess([CALLER, RECORDED], previousOutputs),
        simulate: { stackClusterExists: false },
      }),
    );
    assert.deepEqual(
      error.problems.map((p) => [p.path, p.value]),
      [["cluster.access[0].principalArn", CALLER]],
    );
  });

  it("is unknown in a preview when the cluster was deleted outside Pulumi, and refuses nothing", async () => {
    const previousOutputs = await deployedDev(RECORDED);
    const { result, warnings } = await withWarnings(() =>
      evaluatedWith("dev", {
        ...withAccess([CALLER, RECORDED], previousOutputs),
        simulate: { stackClusterExists: false },
        preview: true,
      }),
    );
    assert.equal(result.outputs.clusterCreator, undefined);
    assert.deepEqual(
      ofType(result, ENTRY).map((e) => e.inputs.principalArn),
      [CALLER, RECORDED],
    );
    assert.deepEqual(warnings, [
      "clusterCreator: EKS has no cluster eks-calico-dev, though the stack's last update left it: it was deleted outside Pulumi, and the `pulumi up` that creates it again makes its caller the creator, in place of arn:aws:iam::123456789012:role/PlatformBootstrap; this preview does not know that caller, so it does not check cluster.access against the creator",
    ]);
  });
});
