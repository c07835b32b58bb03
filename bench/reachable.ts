/**
 * The size of what users run: every file reachable from index.ts through its imports (type-only imports
 * included), as madge reads them with the repository's tsconfig.json, and the lines of those files.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import madge from "madge";

/** The most lines the files reachable from index.ts may add up to. */
export const MAX_REACHABLE_LINES = 13_500;

const ROOT = path.resolve(__dirname, "..");

/** The lines of a text as `wc -l` counts them, plus a last line that has no newline. */
export function countLines(text: string): number {
  const newlines = text.split("\n").length - 1;
  return text === "" || text.endsWith("\n") ? newlines : newlines + 1;
}

export interface Reachable {
  readonly files: number;
  readonly lines: number;
  /** Lines per folder, at most two deep ("components/calico", "stacks", "." for index.ts). */
  readonly linesByFolder: Readonly<Record<string, number>>;
}

/** The files reachable from index.ts under `root` and their lines; throws on an import madge cannot resolve. */
export async function measureReachable(root = ROOT): Promise<Reachable> {
  const result = await madge(path.join(root, "index.ts"), {
    baseDir: root,
    fileExtensions: ["ts"],
    tsConfig: path.join(root, "tsconfig.json"),
  });
  // An import madge cannot resolve drops its file and everything behind it out of the count.
  const { skipped } = result.warnings();
  if (skipped.length > 0) throw new Error(`madge could not resolve: ${skipped.join(", ")}`);
  const files = Object.keys(result.obj()).sort();
  if (!files.includes("index.ts")) throw new Error(`madge read no index.ts under ${root}`);
  const linesByFolder: Record<string, number> = {};
  let lines = 0;
  for (const file of files) {
    const count = countLines(fs.readFileSync(path.join(root, file), "utf8"));
    const folder = path.posix.dirname(file).split("/").slice(0, 2).join("/");
    linesByFolder[folder] = (linesByFolder[folder] ?? 0) + count;
    lines += count;
  }
  return { files: files.length, lines, linesByFolder };
}
