/**
 * The layout's import rules (docs/layout.md), checked on the import graph madge reads from the program's
 * folders: no circle of files; components/ imports only components/; calico/ and existing-cluster/ share
 * what both need through components/kubernetes/, never one through the other; stacks/ reads config and
 * deployed state, and leaves rendering Kubernetes objects to components/. Type-only imports count, as
 * they do for `npx madge --circular --extensions ts`.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import madge from "madge";

const ROOT = path.resolve(__dirname, "..");

/** The program and what runs it: every folder of TypeScript but test/ and bench/. */
const PROGRAM = [
  "components",
  "stacks",
  "offline",
  "local-cluster",
  "scripts",
  "tools",
  "policy",
  "index.ts",
];

/** Each file and the files it imports, relative to the project root. */
type Graph = Readonly<Record<string, readonly string[]>>;

/** The files reachable from `files` through imports, the files themselves included. */
function reachable(graph: Graph, files: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const pending = [...files];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...(graph[file] ?? []));
  }
  return seen;
}

/** The imports from files under `from` of files `to` accepts, as "importer -> imported". */
function importsOf(graph: Graph, from: string, to: (file: string) => boolean): string[] {
  return Object.entries(graph).flatMap(([file, deps]) =>
    file.startsWith(from) ? deps.filter(to).map((dep) => `${file} -> ${dep}`) : [],
  );
}

describe("the layout", () => {
  let graph: Graph = {};
  let circles: string[][] = [];

  before(async () => {
    const result = await madge(PROGRAM, {
      baseDir: ROOT,
      fileExtensions: ["ts"],
      tsConfig: path.join(ROOT, "tsconfig.json"),
    });
    // An import madge cannot resolve drops out of the graph, and every rule below would pass without it.
    assert.deepEqual(result.warnings().skipped, [], "imports madge could not resolve");
    graph = result.obj();
    circles = result.circular();
    assert.ok(
      graph["index.ts"]?.includes("components/calico/index.ts"),
      "the graph holds index.ts's imports",
    );
  });

  it("has no circle of files", () => {
    assert.deepEqual(circles, []);
  });

  it("has offline/world/ answer from its own tables, not from the program's decisions", () => {
    // The AWS partitions' region patterns, the reading of the stack's last outputs, the cluster's and the
    // route tables' names, and the tls provider the real engine runs: data and readers, no function that
    // accepts or refuses.
    assert.deepEqual(importsOf(graph, "offline/world/", (dep) => !dep.startsWith("offline/world/")).sort(), [
      "offline/world/aws-calls.ts -> components/cluster/partitions.ts",
      // The nearest names of a region the table lacks, spelt as every other suggestion.
      "offline/world/aws-calls.ts -> stacks/suggest.ts",
      "offline/world/existing.ts -> stacks/collisions.ts",
      "offline/world/index.ts -> stacks/previous-outputs.ts",
      "offline/world/node-groups.ts -> stacks/scaling-output.ts",
      "offline/world/placeholders.ts -> components/cluster/partitions.ts",
      "offline/world/route-tables.ts -> components/network/layout.ts",
      "offline/world/route-tables.ts -> stacks/collisions.ts",
      "offline/world/tls.ts -> tools/tls-provider/resources.ts",
    ]);
  });

  it("keeps components/ to itself: no import of offline/, test/, local-cluster/, scripts/ or any other folder", () => {
    assert.deepEqual(
      importsOf(graph, "components/", (dep) => !dep.startsWith("components/")),
      [],
    );
  });

  it("lets neither components/calico/ nor components/existing-cluster/ reach the other", () => {
    const files = Object.keys(graph);
    const under = (folder: string) => files.filter((file) => file.startsWith(folder));
    for (const [from, to] of [
      ["components/calico/", "components/existing-cluster/"],
      ["components/existing-cluster/", "components/calico/"],
    ]) {
      assert.ok(under(from).length > 0, `no file under ${from}`);
      const reached = [...reachable(graph, under(from))].filter((file) => file.startsWith(to));
      assert.deepEqual(reached, [], `${from} reaches ${to}`);
    }
  });

  it("has stacks/ import no module of components/ that renders Kubernetes objects", () => {
    // A renderer is a module that exports a `render…` function; what stacks/ needs of a rendered object
    // (the deployed calico-node, for the operator's migration) is one function components/ exports.
    const renderers = Object.keys(graph).filter(
      (file) =>
        file.startsWith("components/") &&
        /^export function render[A-Z]/m.test(fs.readFileSync(path.join(ROOT, file), "utf8")),
    );
    assert.ok(renderers.includes("components/calico/daemonset.ts"), "calico-node's renderer is among them");
    assert.deepEqual(
      importsOf(graph, "stacks/", (dep) => renderers.includes(dep)),
      [],
    );
  });
});
