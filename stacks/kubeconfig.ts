/**
 * What a kubeconfig stack (`cluster.kubeconfig`) reads before any resource exists: the kubeconfig file, the
 * context it uses and that context's API server, read by @kubernetes/client-node. Nothing here asks AWS.
 * A file that is missing, unreadable or no kubeconfig, a context it lacks, and a context without a
 * server are configuration problems. The rest of what client-go refuses in a file (its encodings, the
 * files it names, its credentials) is found by the first request: on the Pulumi engine (`preview` and
 * `up`) that is `GET /version` here, so a kubeconfig that cannot reach its cluster fails before any
 * resource, naming the file and the context. The offline plan sends nothing, and says so.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import YAML from "yaml";
import { type ConfigProblem } from "./problems";
import { isRecord } from "./schema/records";
import { withAbsoluteFileReferences } from "../components/kubeconfig-cluster/kubeconfig";
import { type Credentials, credentialsOf, kubeRequest } from "../components/kubernetes/client";

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
export async function readKubeconfigCluster(
  raw: Record<string, unknown>,
  projectDirectory: string,
  secret = false,
): Promise<{ facts?: KubeconfigClusterFacts; problems: ConfigProblem[]; notices: string[] }> {
  const none = { problems: [], notices: [] };
  const settings = isRecord(raw.cluster) ? raw.cluster.kubeconfig : undefined;
  if (!isRecord(settings)) return none;
  const { path: configured, context } = settings;
  // Keys of the wrong type are the schema's problems; with them there is nothing to read.
  if (typeof configured !== "string" || configured === "") return none;
  if (context !== undefined && (typeof context !== "string" || context === "")) return none;
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
    const rule =
      code === "ENOENT"
        ? `names no file: ${shown} does not exist`
        : `names ${shown}, which cannot be read: ${secret ? String(code) : (error as Error).message}`;
    return { problems: [pathProblem(rule)], notices: [] };
  }
  const directory = path.dirname(file);
  const kubeconfig = withAbsoluteFileReferences(text, directory);
  const hide = (words: string) =>
    secret ? words.replaceAll(file, "the file").replaceAll(directory, "the file's directory") : words;
  let credentials: Credentials;
  try {
    credentials = credentialsOf(kubeconfig, context);
  } catch (error) {
    const rule = hide((error as Error).message);
    const contextProblem = (words: string): ConfigProblem => ({
      path: "cluster.kubeconfig.context",
      value: context,
      rule: words,
    });
    const problem =
      context !== undefined && rule.startsWith("has no context")
        ? contextProblem(`names no context of ${shown}; ${rule.replace(/^has no context "[^"]*"; /, "")}`)
        : rule.startsWith("has no current-context")
          ? contextProblem(`is required: ${shown} ${rule}`)
          : { ...pathProblem(`names ${shown}, which ${rule}`), hint: KUBECTL_HINT };
    return { problems: [problem], notices: [] };
  }
  const parsed = (YAML.parseDocument(text, { version: "1.1", uniqueKeys: false }).toJS() ??
    {}) as KubeconfigFile;
  const stale = staleCurrentContext(parsed);
  if (stale !== undefined) {
    const rule = `names ${shown}, whose current-context "${stale}" is none of its contexts: the Kubernetes provider refuses it even with cluster.kubeconfig.context set`;
    const hint = `set it to one of them: \`kubectl config use-context ${credentials.context} --kubeconfig FILE\``;
    return { problems: [{ ...pathProblem(rule), hint }], notices: [] };
  }
  const facts = {
    kubeconfig: pulumi.secret(kubeconfig),
    context: credentials.context,
    server: fileServer(parsed, credentials),
  };
  if (!onEngine()) {
    const notice = `cluster.kubeconfig: the offline plan read the file's context "${credentials.context}" and its server, and sent no request: its credentials are first used by pulumi preview and up, which stop before any resource if they cannot reach ${credentials.server}`;
    return { facts, problems: [], notices: [notice] };
  }
  try {
    await kubeRequest(credentials, "GET", "/version");
    return { facts, problems: [], notices: [] };
  } catch (error) {
    const rule = `names ${shown}, whose context "${credentials.context}" does not reach its cluster: ${hide((error as Error).message)}`;
    return { problems: [{ ...pathProblem(rule), hint: KUBECTL_HINT }], notices: [] };
  }
}

const KUBECTL_HINT = "kubectl reads it the same way: `kubectl --kubeconfig FILE get --raw /version`";

interface KubeconfigFile {
  "current-context"?: unknown;
  clusters?: { name?: unknown; cluster?: { server?: unknown } }[];
  contexts?: { name?: unknown }[];
}

/**
 * The context's server as the file spells it, the Kubernetes provider's cluster identifier: client-node
 * cuts a trailing slash, and an identifier that changes replaces every object of a deployed stack.
 */
function fileServer(file: KubeconfigFile, credentials: Credentials): string {
  const server = file.clusters?.find((c) => c.name === credentials.cluster)?.cluster?.server;
  return typeof server === "string" ? server : credentials.server;
}

/**
 * A current-context the file lacks, which the provider refuses even beside `cluster.kubeconfig.context`:
 * pulumi-kubernetes v4.25.0 builds its client with clientcmd.NewDefaultClientConfig, whose ConfirmUsable
 * checks the file's current-context whatever context it is given (client-go tools/clientcmd/
 * client_config.go). client-node does not check it.
 */
function staleCurrentContext(file: KubeconfigFile): string | undefined {
  const current = file["current-context"];
  if (typeof current !== "string" || current === "") return undefined;
  return (file.contexts ?? []).some((c) => c.name === current) ? undefined : current;
}

/**
 * Whether the program runs under the Pulumi engine rather than the offline plan's mocks
 * (pulumi.runtime.setMocks installs a MockMonitor, which holds them). On the engine the credentials'
 * first request is `GET /version`, which every authenticated identity may read (the
 * system:public-info-viewer role); it fails as every later request would: an encoding client-go refuses,
 * a file the kubeconfig names that is missing, a token the server refuses, an exec plugin that fails, a
 * server that does not answer.
 */
function onEngine(): boolean {
  return !("mocks" in (pulumi.runtime.getMonitor() ?? {}));
}
