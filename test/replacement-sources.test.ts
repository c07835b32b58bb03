/**
 * Every replacement rule for an AWS type names its source, and says what that source says: its replaceOn
 * paths are exactly the AWS provider's ForceNew arguments recorded in offline/aws-force-new.ts (Terraform
 * names there, Pulumi names in the rules), so a ForceNew path dropped from either side fails here. The
 * names are checked against the installed @pulumi/aws, and every input the program sets is one the
 * recorded schema covers.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { PROJECT_ROOT } from "../offline/engine";
import {
  FORCE_NEW,
  type ForceNewRow,
  TF_AWS_SOURCE,
  forceNewRow,
  pulumiName,
} from "../offline/aws-force-new";
import { REPLACEMENT_RULES, type ReplacementRule, underPath } from "../offline/replacements";
import { EKS_DEFAULT_MAX_UNAVAILABLE } from "../offline/node-rollout";
import { STACKS, evaluated } from "./helpers";

/** The Pulumi input paths that carry a Terraform path, by the rule's names or by camelCase. */
function inputsFor(rule: ReplacementRule, tfPath: string): string[] {
  const names = rule.tf?.names ?? {};
  if (Object.hasOwn(names, tfPath)) return [...names[tfPath]];
  const [head, ...rest] = tfPath.split(".");
  const tail = rest.length > 0 ? `.${pulumiName(rest.join("."))}` : "";
  return (Object.hasOwn(names, head) ? names[head] : [pulumiName(head)]).map((h) => `${h}${tail}`);
}

/** Where a rule and its row of ForceNew arguments disagree. */
function disagreements(type: string, rule: ReplacementRule, row: ForceNewRow): string[] {
  const found: string[] = [];
  const covered = (input: string) => rule.replaceOn.some((p) => underPath(input, p));
  if (rule.tf?.partial !== true) {
    for (const tfPath of row.forceNew) {
      for (const input of inputsFor(rule, tfPath)) {
        if (!covered(input))
          found.push(`${type}: ${row.tfResource} ${tfPath} is ForceNew, ${input} is not in replaceOn`);
      }
    }
  }
  const forceNewInputs = new Set(row.forceNew.flatMap((p) => inputsFor(rule, p)));
  for (const p of rule.replaceOn) {
    if (!forceNewInputs.has(p)) found.push(`${type}: replaceOn ${p} is not ForceNew in ${row.file}`);
  }
  for (const tfPath of row.updates) {
    for (const input of inputsFor(rule, tfPath)) {
      if (covered(input)) found.push(`${type}: ${input} updates in place (${row.file}) but is in replaceOn`);
    }
  }
  return found;
}

const awsRules = Object.entries(REPLACEMENT_RULES).filter(([, rule]) => rule.tf !== undefined);

/** The properties of `@pulumi/aws`'s `<Name>Args` interface for a type token, from its .d.ts. */
function sdkArgs(type: string): Set<string> {
  const [, modulePath, name] = type.split(":");
  const file = path.join(PROJECT_ROOT, "node_modules/@pulumi/aws", `${modulePath}.d.ts`);
  const text = fs.readFileSync(file, "utf8");
  const body = new RegExp(`export interface ${name}Args \\{([\\s\\S]*?)\\n\\}`).exec(text)?.[1] ?? "";
  return new Set([...body.matchAll(/^ {4}(\w+)\??:/gm)].map((m) => m[1]));
}

describe("replacement rules: sources", () => {
  it("gives every AWS rule a row of the provider's ForceNew schema, with its file and the provider build", () => {
    const lock = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version?: string }>;
    };
    assert.equal(`@pulumi/aws ${lock.packages["node_modules/@pulumi/aws"].version}`, TF_AWS_SOURCE.pulumiAws);
    assert.equal(lock.packages["node_modules/@pulumi/eks"].version, "4.3.0");
    const awsTypes = Object.keys(REPLACEMENT_RULES).filter(
      (t) => t.startsWith("aws:") || t.startsWith("eks:"),
    );
    assert.deepEqual(
      awsTypes.filter((t) => forceNewRow(t) === undefined),
      [],
    );
    assert.deepEqual(
      FORCE_NEW.map((r) => r.type).filter((t) => !Object.hasOwn(REPLACEMENT_RULES, t)),
      [],
    );
    for (const type of awsTypes) {
      const rule = REPLACEMENT_RULES[type];
      const row = forceNewRow(type) as ForceNewRow;
      assert.equal(rule.tf?.resource, row.tfResource, type);
      assert.match(row.file, /^internal\/service\/\w+\/\w+\.go$/, type);
      assert.match(row.readAt, /^[0-9a-f]{12}\b/, type);
      for (const part of [row.file, TF_AWS_SOURCE.pulumiAws, TF_AWS_SOURCE.upstream]) {
        assert.ok(rule.source.includes(part), `${type}'s source names ${part}`);
      }
      if (type.startsWith("eks:"))
        assert.match(rule.source, /^pulumi\/pulumi-eks nodejs\/eks\/\S+ v4\.3\.0; /);
    }
  });

  it("replaces on exactly the ForceNew arguments, nested blocks included", () => {
    const found = awsRules.flatMap(([type, rule]) =>
      disagreements(type, rule, forceNewRow(type) as ForceNewRow),
    );
    assert.deepEqual(found, []);
    // Spot checks of the mapping: nested blocks and renamed inputs.
    const group = REPLACEMENT_RULES["eks:index:ManagedNodeGroup"];
    assert.deepEqual(inputsFor(group, "launch_template.id"), ["launchTemplate.id"]);
    assert.deepEqual(inputsFor(group, "node_role_arn"), ["nodeRole", "nodeRoleArn"]);
    assert.deepEqual(inputsFor(REPLACEMENT_RULES["aws:ec2/routeTable:RouteTable"], "route"), ["routes"]);
  });

  it("fails when a ForceNew path is dropped from a rule or from the recorded schema", () => {
    for (const [type, rule] of awsRules) {
      const row = forceNewRow(type) as ForceNewRow;
      for (const dropped of rule.replaceOn) {
        const weaker = { ...rule, replaceOn: rule.replaceOn.filter((p) => p !== dropped) };
        if (rule.tf?.partial !== true) {
          assert.notDeepEqual(disagreements(type, weaker, row), [], `${type} without ${dropped}`);
        }
      }
      for (const dropped of row.forceNew) {
        const fewer = { ...row, forceNew: row.forceNew.filter((p) => p !== dropped) };
        const mapped = inputsFor(rule, dropped);
        if (rule.replaceOn.some((p) => mapped.includes(p))) {
          assert.notDeepEqual(disagreements(type, rule, fewer), [], `${row.tfResource} without ${dropped}`);
        }
      }
    }
  });

  it("makes a new launch template version for every change but the arguments outside updateKeys", () => {
    const type = "aws:ec2/launchTemplate:LaunchTemplate";
    const row = forceNewRow(type) as ForceNewRow;
    // resourceLaunchTemplateUpdate: description is one of the updateKeys, tags and default_version are not.
    assert.deepEqual(row.noNewVersion, [
      "name",
      "name_prefix",
      "tags",
      "tags_all",
      "default_version",
      "update_default_version",
    ]);
    const rule = REPLACEMENT_RULES[type].updateOutputs;
    assert.deepEqual(rule?.except, [
      "name",
      "namePrefix",
      "tags",
      "tagsAll",
      "defaultVersion",
      "updateDefaultVersion",
    ]);
    assert.deepEqual(rule?.outputs, ["latestVersion"]);
    assert.ok(!rule?.except.includes("description"), "a description change makes a version");
  });

  it("names only arguments the installed @pulumi/aws has", () => {
    for (const [type, rule] of awsRules.filter(([t]) => t.startsWith("aws:"))) {
      const row = forceNewRow(type) as ForceNewRow;
      const args = sdkArgs(type);
      assert.ok(args.size > 0, `${type}: Args interface found`);
      for (const tfPath of [...row.forceNew, ...row.updates]) {
        for (const input of inputsFor(rule, tfPath)) {
          assert.ok(args.has(input.split(".")[0]), `${type}Args has ${input} (${row.tfResource} ${tfPath})`);
        }
      }
    }
  });

  it("covers every input the program sets: recorded for AWS resources, ruled for node groups", async () => {
    const unverified = new Set<string>();
    for (const stack of STACKS) {
      for (const r of (await evaluated(stack)).resources) {
        const rule = REPLACEMENT_RULES[r.type];
        const row = forceNewRow(r.type);
        if (rule?.tf === undefined || row === undefined || r.type === "eks:index:Cluster") continue;
        const known =
          r.type === "eks:index:ManagedNodeGroup"
            ? [...rule.replaceOn, ...(rule.updateOn ?? [])]
            : [...row.forceNew, ...row.updates].flatMap((p) => inputsFor(rule, p));
        for (const key of Object.keys(r.inputs)) {
          if (!known.some((p) => p === key || p.startsWith(`${key}.`))) unverified.add(`${r.type} ${key}`);
        }
      }
    }
    assert.deepEqual([...unverified].sort(), []);
  });

  it("states the provider build and EKS's default maxUnavailable in the docs as the code has them", () => {
    const page = fs
      .readFileSync(path.join(PROJECT_ROOT, "docs/offline-plan.md"), "utf8")
      .replace(/\s+/g, " ");
    const upstream = /^terraform-provider-aws (v\S+ or later)/.exec(TF_AWS_SOURCE.upstream)?.[1];
    for (const phrase of [
      `maxUnavailable ${EKS_DEFAULT_MAX_UNAVAILABLE}`,
      TF_AWS_SOURCE.pulumiAws,
      `(${String(upstream)})`,
    ]) {
      assert.ok(page.includes(phrase), `docs/offline-plan.md says "${phrase}"`);
    }
  });
});
