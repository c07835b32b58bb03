/**
 * A kubeconfig (https://kubernetes.io/docs/reference/config-api/kubeconfig.v1/) as the Kubernetes
 * provider is given it: its contents, which clientcmd.Load reads without a directory, so every relative
 * file reference is made absolute first. Pure: files are read in stacks/.
 */
import * as path from "node:path";
import { isMap, isScalar, isSeq, parseDocument } from "yaml";

/**
 * The file references client-go resolves against the kubeconfig's own directory (loader.go
 * ResolveLocalPaths and GetClusterFileReferences / GetAuthInfoFileReferences): a cluster's
 * certificate-authority; a user's client-certificate, client-key and tokenFile, and exec.command when it
 * holds a path separator.
 */
const FILE_REFERENCES = {
  clusters: { cluster: ["certificate-authority"] },
  users: { user: ["client-certificate", "client-key", "tokenFile"], "user.exec": ["command"] },
} as const;

/**
 * `text` with every relative file reference made absolute against `directory`, as client-go reads the
 * file. Only those scalars change; a file without relative references, or that is no YAML, is returned
 * as it is.
 */
export function withAbsoluteFileReferences(text: string, directory: string): string {
  const doc = parseDocument(text, { version: "1.1", uniqueKeys: false });
  if (doc.errors.length > 0) return text;
  const edits: { start: number; end: number; text: string }[] = [];
  for (const [list, fields] of Object.entries(FILE_REFERENCES)) {
    const entries = doc.get(list, true);
    if (!isSeq(entries)) continue;
    for (const entry of entries.items) {
      if (!isMap(entry)) continue;
      for (const [at, keys] of Object.entries(fields) as [string, readonly string[]][]) {
        for (const key of keys) {
          const node = entry.getIn([...at.split("."), key], true);
          if (!isScalar(node) || typeof node.value !== "string" || node.value === "" || !node.range) continue;
          if (path.isAbsolute(node.value) || (key === "command" && !node.value.includes(path.sep))) continue;
          const [start, end] = node.range;
          edits.push({ start, end, text: JSON.stringify(path.join(directory, node.value)) });
        }
      }
    }
  }
  return edits
    .sort((a, b) => b.start - a.start)
    .reduce((out, edit) => out.slice(0, edit.start) + edit.text + out.slice(edit.end), text);
}
