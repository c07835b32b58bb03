/**
 * Secrets stay secret: a key set with `pulumi config set --secret` marks every resource input and stack
 * output that holds its value, is never echoed in a problem, and may not name a resource.
 */
import * as assert from "node:assert/strict";
import { type ResourceRecord, evaluateStackExpectingError } from "../offline/engine";
import { ConfigError } from "../stacks";
import { holdsSecret, secretLeaves } from "../stacks/secrets";
import { evaluated, evaluatedWith, ofType, unwrapped } from "./helpers";

const MIRROR = "123456789012.dkr.ecr.us-west-2.amazonaws.com/calico-mirror";

/** Resources whose `key` input is recorded secret. */
const secretIn = (resources: ResourceRecord[], key: string) =>
  resources.filter((r) => r.secretInputs.includes(key));

describe("secret config values", () => {
  it("collects the strings and numbers of the secret keys only", () => {
    const raw = {
      tags: { costCenter: "cc-4711", team: "platform" },
      calico: { version: "v3.31.7" },
      protect: true,
    };
    assert.deepEqual(secretLeaves(raw, new Set(["tags"])).sort(), ["cc-4711", "platform"]);
    assert.deepEqual(secretLeaves(raw, new Set()), []);
  });

  for (const [value, expected] of [
    ["cc-4711", true],
    [`${MIRROR}/node:v3.31.7`, false],
    [{ tags: { a: "cc-4711" } }, true],
    [["x", "prefix-cc-4711-suffix"], true],
    ["cc-471", false],
    [4711, false],
  ] as const) {
    it(`finds the secret "cc-4711" in ${JSON.stringify(value)}: ${expected}`, () => {
      assert.equal(holdsSecret(value, ["cc-4711"]), expected);
    });
  }

  it("short secret strings match only whole values, so `api` does not mark every string containing it", () => {
    assert.equal(holdsSecret("api", ["api"]), true);
    assert.equal(holdsSecret("rapid", ["api"]), false);
  });

  it("secret tags make the tags of every AWS resource secret, and no other stack's inputs change", async () => {
    const plain = await evaluated("dev");
    const secret = await evaluatedWith("dev", {
      config: { "eks-calico:tags": { environment: "dev", costCenter: "cc-4711" } },
      secrets: ["eks-calico:tags"],
    });
    const tagged = secret.resources.filter((r) => r.type.startsWith("aws:") && "tags" in r.inputs);
    assert.ok(tagged.length > 10, `${tagged.length} tagged resources`);
    assert.deepEqual(
      tagged.filter((r) => !r.secretInputs.includes("tags")).map((r) => r.urn),
      [],
    );
    // The remote EKS component gets its tags as a secret too, so its children do.
    const cluster = secret.resources.find((r) => r.type === "eks:index:Cluster");
    assert.ok(cluster?.secretInputs.includes("tags"));
    // Without --secret the same tags stay plain: the flag, not the value, decides.
    assert.deepEqual(secretIn(plain.resources, "tags"), []);
  });

  it("a secret Calico registry makes every image reference to it secret, and the outputs from the key", async () => {
    const evaluation = await evaluatedWith("dev", {
      config: { "eks-calico:calico": { registry: MIRROR } },
      secrets: ["eks-calico:calico"],
    });
    const workloads = [
      ...ofType(evaluation, "kubernetes:apps/v1:DaemonSet"),
      ...ofType(evaluation, "kubernetes:apps/v1:Deployment"),
    ].filter((r) => JSON.stringify(r.inputs).includes(MIRROR));
    assert.ok(workloads.length >= 2, "calico-node and Typha pull from the mirror");
    for (const workload of workloads) assert.ok(workload.secretInputs.includes("spec"), workload.urn);
    // calico.version comes from the secret key: the `calico` output is secret, the others are not.
    assert.ok(evaluation.secretOutputs.includes("calico"));
    assert.ok(!evaluation.secretOutputs.includes("vpcId"));
  });

  it("refuses a secret key whose values name resources, without echoing them", async () => {
    const { error, resources } = await evaluateStackExpectingError("dev", {
      secrets: ["eks-calico:nodeGroups"],
    });
    assert.ok(ConfigError.isConfigError(error), String(error));
    assert.deepEqual(
      error.problems.map((p) => p.path),
      ["nodeGroups[0].name"],
    );
    assert.match(unwrapped(error.message), /set with --secret, but it becomes part of a resource name/);
    assert.ok(!error.message.includes('"general"'), error.message);
    assert.deepEqual(
      resources.filter((r) => r.type !== "pulumi:pulumi:Stack"),
      [],
    );
  });

  it("refuses secret access principals, which name their access entries", async () => {
    const arn = "arn:aws:iam::123456789012:role/platform-admins";
    const { error } = await evaluateStackExpectingError("dev", {
      config: { "eks-calico:cluster": { access: [{ principalArn: arn, level: "admin" }] } },
      secrets: ["eks-calico:cluster"],
    });
    assert.ok(ConfigError.isConfigError(error), String(error));
    assert.deepEqual(
      error.problems.map((p) => p.path),
      ["cluster.access[0].principalArn"],
    );
    assert.ok(!error.message.includes(arn));
  });

  it("masks a secret key's bad value in the problem the program raises", async () => {
    const { error } = await evaluateStackExpectingError("dev", {
      config: { "eks-calico:calico": { registry: "Not A Registry!" } },
      secrets: ["eks-calico:calico"],
    });
    assert.ok(ConfigError.isConfigError(error), String(error));
    assert.match(unwrapped(error.message), /calico\.registry: .*\(got a secret value\)/);
    assert.ok(!error.message.includes("Not A Registry!"), error.message);
  });
});
