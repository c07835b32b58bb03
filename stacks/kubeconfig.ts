/**
 * What a kubeconfig stack (`cluster.kubeconfig`) reads before any resource exists: the kubeconfig file, the
 * context it uses and that context's API server. Nothing here asks AWS. A file that is missing or
 * unreadable, and everything client-go refuses in it for the context in use
 * (components/kubeconfig-cluster/check.ts), are configuration problems. One inside the file is reported at
 * `cluster.kubeconfig.path → <path in the file>`, such as `users[0].user.client-key-data`.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { type ConfigProblem, SECRET_VALUE } from "./problems";
import { isRecord } from "./schema/records";
import { type KubeconfigProblem, checkKubeconfig } from "../components/kubeconfig-cluster/check";
import { withAbsoluteFileReferences } from "../components/kubeconfig-cluster/kubeconfig";
import { KUBECONFIG_RULES } from "../components/kubeconfig-cluster/rules";

/** The cluster a kubeconfig stack installs Calico on, as its kubeconfig file shows it. */
export interface KubeconfigClusterFacts {
  /** The file's contents, secret from the moment they are read: a kubeconfig holds credentials. */
  readonly kubeconfig: pulumi.Output<string>;
  /** The context in use: `cluster.kubeconfig.context`, or the file's current-context. */
  readonly context: string;
  /** The API server URL of that context's cluster. */
  readonly server: string;
}

/** `~` and `~/...` are the home directory; anything else relative is relative to `projectDirectory`. */
export function kubeconfigFile(configured: string, projectDirectory: string): string {
  const home = configured === "~" || configured.startsWith("~/");
  return path.resolve(projectDirectory, home ? path.join(os.homedir(), configured.slice(1)) : configured);
}

/**
 * Reads the kubeconfig that the raw `cluster.kubeconfig` keys name; every problem of the file and the
 * context at once. Keys the schema refuses (a path that is not a string) are left to its problems, and a
 * stack without `cluster.kubeconfig` reads nothing. With `cluster` set with --secret, problems do not name
 * the file (its path comes from the secret).
 */
export function readKubeconfigCluster(
  raw: Record<string, unknown>,
  projectDirectory: string,
  secret = false,
): { facts?: KubeconfigClusterFacts; problems: ConfigProblem[] } {
  const settings = isRecord(raw.cluster) ? raw.cluster.kubeconfig : undefined;
  if (!isRecord(settings)) return { problems: [] };
  const { path: configured, context } = settings;
  // Keys of the wrong type are the schema's problems; with them there is nothing to read.
  if (typeof configured !== "string" || configured === "") return { problems: [] };
  if (context !== undefined && (typeof context !== "string" || context === "")) return { problems: [] };
  const file = kubeconfigFile(configured, projectDirectory);
  const shown = secret ? "the file" : file;
  const pathProblem = (rule: string): ConfigProblem => ({
    path: "cluster.kubeconfig.path",
    value: configured,
    rule,
  });
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      problems: [
        pathProblem(
          code === "ENOENT"
            ? `names no file: ${shown} does not exist`
            : `names ${shown}, which cannot be read: ${secret ? String(code) : (error as Error).message}`,
        ),
      ],
    };
  }
  const directory = path.dirname(file);
  const checked = checkKubeconfig(text, {
    context,
    directory,
    readFile: (named) => fs.readFileSync(named),
  });
  if (checked.target === undefined) {
    const hide = (words: string) =>
      secret ? words.replaceAll(file, "the file").replaceAll(directory, "the file's directory") : words;
    return {
      problems: checked.problems.map((problem) => {
        const found = configProblem(problem, configured, context, shown);
        return { ...found, rule: hide(found.rule) };
      }),
    };
  }
  return {
    facts: { kubeconfig: pulumi.secret(withAbsoluteFileReferences(text, directory)), ...checked.target },
    problems: [],
  };
}

/** Where a problem of the file is reported, and its rule with client-go's own words. */
function configProblem(
  problem: KubeconfigProblem,
  configured: string,
  context: string | undefined,
  shown: string,
): ConfigProblem {
  const { rule } = KUBECONFIG_RULES[problem.rule];
  const words = [rule, problem.detail, problem.reason && `(client-go: ${problem.reason})`].filter(Boolean);
  const hint =
    problem.rule === "currentContextMissing"
      ? `set the file's current-context to one of its contexts: \`kubectl config use-context ${String(context)} --kubeconfig FILE\``
      : `kubectl refuses it too (\`kubectl --kubeconfig FILE get --raw /version\`); docs/kubeconfig-clusters.md lists each rule with its client-go source`;
  if (problem.key === "context") {
    return { path: "cluster.kubeconfig.context", value: context, rule: words.join(" ") };
  }
  if (problem.at === "") {
    return {
      path: "cluster.kubeconfig.path",
      value: configured,
      rule: `names ${shown}, which ${words.join(" ")}`,
      hint,
    };
  }
  return {
    path: `cluster.kubeconfig.path → ${problem.at}`,
    value: problem.credential ? SECRET_VALUE : problem.value,
    rule: words.join(" "),
    hint,
  };
}
