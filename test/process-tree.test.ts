/**
 * killTree (local-cluster/process-tree.ts) ends a process and everything it started, also a child in a
 * process group of its own (as the Pulumi CLI starts its plugins), which killing the group would miss.
 */
import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { killTree } from "../local-cluster/process-tree";

function alive(pid: number): boolean {
  try {
    // A killed child is a zombie until reaped: it counts as gone.
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

describe("killTree", () => {
  it("kills a process, its child, and a grandchild in a process group of its own", async () => {
    // sh starts a child sh, which starts `sleep` in a new session (setsid: its own process group). The
    // sleeps' odd duration tells them from any other process's.
    const nap = `${300 + Math.floor(Math.random() * 1000) / 1000}`;
    const root = spawn("sh", ["-c", `sh -c 'setsid sleep ${nap} & sleep ${nap}' & sleep ${nap}`], {
      stdio: "ignore",
    });
    const pid = root.pid ?? 0;
    let tree: number[] = [];
    for (let i = 0; i < 50 && tree.length < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      tree = fs
        .readdirSync("/proc")
        .filter((e) => /^\d+$/.test(e))
        .map(Number)
        .filter((p) => {
          try {
            return fs.readFileSync(`/proc/${p}/cmdline`, "utf8").includes(`sleep\u0000${nap}\u0000`);
          } catch {
            return false;
          }
        });
    }
    assert.equal(tree.length >= 3, true, `three sleeps started: ${tree.join(", ")}`);
    const groups = new Set(
      tree.map((p) => fs.readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ")[3]),
    );
    assert.ok(groups.size > 1, "one of them is in a process group of its own");

    const killed = killTree(pid);
    for (const p of tree) assert.ok(killed.includes(p), `${p} was in the tree`);
    await new Promise((resolve) => root.once("exit", resolve));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(
      tree.filter((p) => alive(p)),
      [],
      "none is left",
    );
  });
});
