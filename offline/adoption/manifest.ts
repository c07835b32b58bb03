/**
 * A manifest as a user applied it with `kubectl apply -f`: multi-document YAML as fetched from upstream,
 * `List` objects expanded, empty documents skipped. Anything that is not a Kubernetes object is refused
 * with where it is, rather than guessed at.
 */
import { parseAllDocuments } from "yaml";
import type { ManifestObject } from "./objects";
import { isPlainObject } from "../plan";

export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ManifestError";
  }
}

function objectsOf(value: unknown, where: string): ManifestObject[] {
  if (!isPlainObject(value))
    throw new ManifestError(`${where}: not a Kubernetes object (a map with apiVersion, kind and metadata)`);
  if (typeof value.kind === "string" && value.kind.endsWith("List") && Array.isArray(value.items)) {
    return value.items.flatMap((item, i) => objectsOf(item, `${where} items[${i}]`));
  }
  const metadata = value.metadata;
  if (
    typeof value.apiVersion !== "string" ||
    typeof value.kind !== "string" ||
    !isPlainObject(metadata) ||
    typeof metadata.name !== "string"
  ) {
    throw new ManifestError(`${where}: a Kubernetes object needs apiVersion, kind and metadata.name`);
  }
  return [value as ManifestObject];
}

/** The objects of a manifest's text; `source` names it in errors. */
export function parseManifest(text: string, source: string): ManifestObject[] {
  const documents = parseAllDocuments(text);
  const list = Array.isArray(documents) ? documents : [documents];
  return list.flatMap((document, index) => {
    const error = document.errors[0];
    if (error !== undefined) {
      const [line, column] = error.linePos?.[0] ? [error.linePos[0].line, error.linePos[0].col] : [0, 0];
      throw new ManifestError(`${source}:${line}:${column}: ${error.message.split("\n")[0]}`);
    }
    const value: unknown = document.toJS();
    if (value === null || value === undefined) return [];
    const line = document.contents?.range
      ? text.slice(0, document.contents.range[0]).split("\n").length
      : index + 1;
    return objectsOf(value, `${source}:${line} (document ${index + 1})`);
  });
}
