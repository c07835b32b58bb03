/**
 * What a kubeconfig says about the cluster it reaches (https://kubernetes.io/docs/reference/config-api/kubeconfig.v1/),
 * read as client-go reads it (load.ts); what client-go refuses in it is check.ts's. Pure: files are read in
 * stacks/.
 */
import * as path from "node:path";
import { isScalar, parseAllDocuments } from "yaml";
import { type KubeconfigTarget } from "./check";
import { loadKubeconfig, parseKubeconfigYaml } from "./load";

export type { KubeconfigTarget } from "./check";

/**
 * The context `context` (else the file's current-context) and its cluster's server, when the file loads
 * and has them; nothing is checked beyond that.
 */
export function kubeconfigTarget(text: string, context?: string): KubeconfigTarget | undefined {
  const config = loadKubeconfig(text).config;
  const name = context ?? config?.currentContext ?? "";
  const entry = config?.contexts.get(name)?.value;
  const cluster = config?.clusters.get(typeof entry?.cluster === "string" ? entry.cluster : "")?.value;
  return typeof cluster?.server === "string" && cluster.server !== ""
    ? { context: name, server: cluster.server }
    : undefined;
}

/**
 * The file references client-go resolves against the kubeconfig's own directory (loader.go
 * ResolveLocalPaths and GetClusterFileReferences / GetAuthInfoFileReferences: a cluster's
 * certificate-authority; a user's client-certificate, client-key and tokenFile, and exec.command when it
 * holds a path separator), as [path in the document, value].
 */
function fileReferences(doc: unknown): [(string | number)[], string][] {
  const refs: [(string | number)[], string][] = [];
  const record = (v: unknown): Record<string, unknown> =>
    v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  const entries = (key: string) => (Array.isArray(record(doc)[key]) ? (record(doc)[key] as unknown[]) : []);
  const add = (at: (string | number)[], value: unknown) => {
    if (typeof value === "string" && value !== "") refs.push([at, value]);
  };
  entries("clusters").forEach((e, i) => {
    const cluster = record(record(e).cluster);
    add(["clusters", i, "cluster", "certificate-authority"], cluster["certificate-authority"]);
  });
  entries("users").forEach((e, i) => {
    const user = record(record(e).user);
    for (const key of ["client-certificate", "client-key", "tokenFile"])
      add(["users", i, "user", key], user[key]);
    const command = record(user.exec).command;
    if (typeof command === "string" && command.includes(path.sep))
      add(["users", i, "user", "exec", "command"], command);
  });
  return refs;
}

/**
 * `text` with every relative file reference made absolute against `directory`, as client-go reads the
 * file: the Kubernetes provider is given the contents, which clientcmd.Load reads without a directory.
 * Only those scalars change; a file without relative references is returned as it is.
 */
export function withAbsoluteFileReferences(text: string, directory: string): string {
  const parsed = parseKubeconfigYaml(text);
  if ("error" in parsed) return text;
  const relative = fileReferences(parsed.value).filter(([, value]) => !path.isAbsolute(value));
  if (relative.length === 0) return text;
  const [doc] = parseAllDocuments(text, { version: "1.1", uniqueKeys: false }) as unknown as [
    { getIn(at: unknown[], keepScalar: true): unknown },
  ];
  const edits = relative.flatMap(([at, value]) => {
    const node = doc.getIn(at, true);
    if (!isScalar(node) || !node.range) return [];
    const [start, end] = node.range;
    return [{ start, end, text: JSON.stringify(path.join(directory, value)) }];
  });
  return edits
    .sort((a, b) => b.start - a.start)
    .reduce((out, edit) => out.slice(0, edit.start) + edit.text + out.slice(edit.end), text);
}
