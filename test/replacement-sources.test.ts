/**
 * Every replacement rule for an AWS type names its source: the AWS provider's ForceNew arguments recorded
 * once in offline/aws-force-new.ts, from which replacements.ts derives its replaceOn paths in Pulumi's
 * names. Checked here: each row's provenance, the mapping on literal cases, that a component exposing only
 * some arguments replaces only on ForceNew ones, that nothing updating in place is in replaceOn, that the
 * names exist in the installed @pulumi/aws, and that every input the program sets is one the recorded
 * schema covers.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { PROJECT_ROOT } from "../offline/engine";
import { FORCE_NEW, type ForceNewRow, TF_AWS_SOURCE, forceNewRow } from "../offline/aws-force-new";
import { REPLACEMENT_RULES, forceNewInputs, inputsFor, underPath } from "../offline/replacements";
import type { ReplacementRule } from "../offline/diff-types";
import { EKS_DEFAULT_MAX_UNAVAILABLE } from "../components/cluster/node-rolls";
import { STACKS, evaluated } from "./helpers";

/** Where a rule and its row of ForceNew arguments disagree: what only a hand-written rule can get wrong. */
function disagreements(type: string, rule: ReplacementRule, row: ForceNewRow): string[] {
  const names = rule.tf?.names ?? {};
  const found: string[] = [];
  const covered = (input: string) => rule.replaceOn.some((p) => underPath(input, p));
  const forceNew = forceNewInputs(type, names);
  for (const p of rule.replaceOn) {
    if (!forceNew.some((input) => underPath(p, input))) {
      found.push(`${type}: replaceOn ${p} is not ForceNew in ${row.file}`);
    }
  }
  for (const tfPath of row.updates) {
    for (const input of inputsFor(names, tfPath)) {
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

  it("replaces on the recorded ForceNew arguments, nested blocks and renamed inputs included", () => {
    const found = awsRules.flatMap(([type, rule]) =>
      disagreements(type, rule, forceNewRow(type) as ForceNewRow),
    );
    assert.deepEqual(found, []);
    assert.deepEqual(REPLACEMENT_RULES["aws:ec2/routeTable:RouteTable"].replaceOn, ["vpcId"]);
    assert.deepEqual(REPLACEMENT_RULES["aws:eks/accessPolicyAssociation:AccessPolicyAssociation"].replaceOn, [
      "accessScope",
      "clusterName",
      "policyArn",
      "principalArn",
    ]);
    assert.deepEqual([...REPLACEMENT_RULES["aws:eks/nodeGroup:NodeGroup"].replaceOn].sort(), [
      "amiType",
      "capacityType",
      "clusterName",
      "diskSize",
      "instanceTypes",
      "launchTemplate.id",
      "launchTemplate.name",
      "nodeGroupName",
      "nodeGroupNamePrefix",
      "nodeRoleArn",
      "remoteAccess",
      "subnetIds",
    ]);
    // A component exposing only some arguments replaces on those it passes, all of them ForceNew.
    assert.deepEqual(REPLACEMENT_RULES["eks:index:Cluster"].replaceOn, ["name"]);
    const wider = { ...REPLACEMENT_RULES["eks:index:Cluster"], replaceOn: ["name", "version"] };
    assert.notDeepEqual(
      disagreements("eks:index:Cluster", wider, forceNewRow("eks:index:Cluster") as ForceNewRow),
      [],
    );
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
        for (const input of inputsFor(rule.tf?.names ?? {}, tfPath)) {
          assert.ok(args.has(input.split(".")[0]), `${type}Args has ${input} (${row.tfResource} ${tfPath})`);
        }
      }
    }
  });

  it("covers every input the program sets: each recorded for its AWS resource", async () => {
    const unverified = new Set<string>();
    for (const stack of STACKS) {
      for (const r of (await evaluated(stack)).resources) {
        const rule = REPLACEMENT_RULES[r.type];
        const row = forceNewRow(r.type);
        if (rule?.tf === undefined || row === undefined || r.type === "eks:index:Cluster") continue;
        const known = [...row.forceNew, ...row.updates].flatMap((p) => inputsFor(rule.tf?.names ?? {}, p));
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
