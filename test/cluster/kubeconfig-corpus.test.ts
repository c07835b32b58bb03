/**
 * The program's kubeconfig checks (components/kubeconfig-cluster/check.ts, through stacks/kubeconfig.ts)
 * held to client-go itself: each file of test/fixtures/kubeconfig/corpus gets kubectl's verdict and the
 * program's, and they must agree. kubectl accepts a file when both
 *   kubectl --kubeconfig F config view --minify --raw      (client-go loads it; the context, its cluster
 *                                                          and user exist)
 *   kubectl --kubeconfig F get --raw /version              (client-go builds a client for the context,
 *                                                          and it reaches the local control plane)
 * exit 0, run with no terminal on standard input and `--context` when the file's first line is
 * `# context: NAME`. The program accepts a file when `cluster.kubeconfig` naming it has no problem.
 * Placeholders ${SERVER}, ${CA_DATA}, ${TOKEN}, ... are the local control plane's; the files beside the
 * kubeconfig (ca.crt, token, client.crt, client.key, other.key, empty-token, plugin.sh) are written with
 * it. A file named refused-<rule>[-...] must also be refused for that rule (rules.ts).
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import YAML from "yaml";
import { type ClusterState, startControlPlane, stopControlPlane } from "../../local-cluster/control-plane";
import { requireTools } from "../../local-cluster/index";
import { checkKubeconfig } from "../../components/kubeconfig-cluster/check";
import { KUBECONFIG_RULES } from "../../components/kubeconfig-cluster/rules";
import { readKubeconfigCluster } from "../../stacks/kubeconfig";
import { clientPki } from "../kubeconfig-pki";
import { compare, disagreements } from "./agreement";

const CORPUS = path.join(__dirname, "..", "fixtures", "kubeconfig", "corpus");

/**
 * Rules kubectl cannot show: the provider, not kubectl, refuses a missing current-context beside an
 * explicit context (client_config.go NewDefaultClientConfig, which the provider uses, checks the file's
 * current-context; kubectl's NewInteractiveClientConfig checks the one given).
 */
const PROVIDER_ONLY = new Set(["currentContextMissing"]);

type Verdict = "accepted" | "refused";

interface Run {
  readonly verdict: Verdict;
  readonly output: string;
}

describe("kubeconfig files as client-go reads them: the program agrees with kubectl", function () {
  this.timeout(10 * 60_000);

  const dir = path.join(os.tmpdir(), `eks-calico-kubeconfig-corpus-${process.pid}`);
  const files = path.join(dir, "files");
  let bin: string;
  let state: ClusterState;
  let values: Record<string, string>;

  before(async function () {
    bin = requireTools();
    state = await startControlPlane(path.join(dir, "cluster"), bin);
    const admin = YAML.parse(fs.readFileSync(state.kubeconfig, "utf8")) as {
      users: { user: { token: string } }[];
    };
    const token = admin.users[0].user.token;
    const ca = fs.readFileSync(path.join(state.dir, "pki", "apiserver.crt"));
    const pki = await clientPki();
    const caData = ca.toString("base64");
    values = {
      SERVER: state.server,
      SERVER_HOST_PORT: new URL(state.server).host,
      CA_DATA: caData,
      CA_DATA_WRAPPED: (caData.match(/.{1,64}/g) ?? []).join("\n      "),
      TOKEN: token,
      CERT_DATA: Buffer.from(pki.cert).toString("base64"),
      KEY_DATA: Buffer.from(pki.key).toString("base64"),
      OTHER_KEY_DATA: Buffer.from(pki.otherKey).toString("base64"),
    };
    fs.mkdirSync(files, { recursive: true });
    const beside: Record<string, string | Buffer> = {
      "ca.crt": ca,
      token,
      "empty-token": "",
      "client.crt": pki.cert,
      "client.key": pki.key,
      "other.key": pki.otherKey,
      "plugin.sh": `#!/bin/sh\nprintf '%s' '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${token}"}}'\n`,
    };
    for (const [name, content] of Object.entries(beside)) fs.writeFileSync(path.join(files, name), content);
    fs.chmodSync(path.join(files, "plugin.sh"), 0o755);
  });

  after(async function () {
    if (state !== undefined) await stopControlPlane(state.dir);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** kubectl's verdict on `file`, with the output of the first command that failed. */
  function kubectl(file: string, context: string | undefined): Run {
    const home = path.join(dir, "home");
    fs.mkdirSync(home, { recursive: true });
    const env = { PATH: process.env.PATH ?? "", HOME: home };
    const flags = ["--kubeconfig", file, ...(context === undefined ? [] : ["--context", context])];
    for (const args of [
      ["config", "view", "--minify", "--raw"],
      ["get", "--raw", "/version", "--request-timeout", "20s"],
    ]) {
      const run = spawnSync(path.join(bin, "kubectl"), [...flags, ...args], {
        env,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 60_000,
      });
      if (run.status !== 0) {
        return { verdict: "refused", output: `${args.slice(0, 2).join(" ")}: ${run.stderr.trim()}` };
      }
    }
    return { verdict: "accepted", output: "" };
  }

  it("gives every corpus file the verdict kubectl gives it", function () {
    const names = fs.readdirSync(CORPUS).sort();
    const lines: string[] = [];
    const misnamed: string[] = [];
    for (const name of names) {
      const source = fs.readFileSync(path.join(CORPUS, name), "utf8");
      const text = source.replace(/\$\{([A-Z_]+)\}/g, (whole, key: string) => values[key] ?? whole);
      const file = path.join(files, name);
      fs.writeFileSync(file, text);
      const context = /^# context: (\S+)/.exec(source)?.[1];
      const real = kubectl(file, context);
      const read = readKubeconfigCluster({ cluster: { kubeconfig: { path: file, context } } }, dir);
      const program: Verdict = read.problems.length > 0 ? "refused" : "accepted";
      compare(`kubeconfig ${name}`, program, real.verdict, "kubectl");
      lines.push(
        `${program === real.verdict ? "agrees" : "DISAGREES"}: ${name}: program ${program}${read.problems.map((p) => `\n      ${p.path}: ${p.rule}`).join("")}\n    kubectl ${real.verdict}${real.output ? `: ${real.output.split("\n")[0]}` : ""}`,
      );
      const named = /^refused-([A-Za-z0-9]+)/.exec(name)?.[1];
      if (named !== undefined) {
        const rules = checkKubeconfig(text, {
          context,
          directory: files,
          readFile: (f) => fs.readFileSync(f),
        }).problems.map((p) => p.rule);
        assert.ok(
          rules.includes(named as never),
          `${name} is refused for ${named}, not only ${rules.join(", ")}`,
        );
      }
    }
    console.log(lines.join("\n"));
    assert.deepEqual(disagreements(), []);
    assert.deepEqual(misnamed, [], "files not refused for the rule they name");
    // Every rule has a file kubectl refuses for it.
    const covered = new Set(names.map((n) => /^refused-([A-Za-z0-9]+)/.exec(n)?.[1]));
    const uncovered = Object.keys(KUBECONFIG_RULES).filter((r) => !covered.has(r) && !PROVIDER_ONLY.has(r));
    assert.deepEqual(uncovered, [], "rules without a corpus file");
  });
});
