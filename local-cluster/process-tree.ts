/**
 * A process and every process it started, killed at once, as a machine that loses power or a CI runner
 * that is stopped ends a `pulumi up`: the driver, the CLI and every plugin die together, with no chance to
 * record anything. Killing the process group is not enough: the CLI starts each plugin in a process group
 * of its own (pulumi v3.248.0 sdk/go/common/resource/plugin/plugin.go calls cmdutil.RegisterProcessGroup,
 * which sets Setpgid), so the tree is read from /proc instead (Linux only, as the local cluster is).
 */
import * as fs from "node:fs";

/** Each live process's parent, from /proc/<pid>/stat (the field after the command's closing parenthesis). */
function parents(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited since the listing
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    parentOf.set(Number(entry), Number(fields[1]));
  }
  return parentOf;
}

/** `pid` and its descendants, parents before children. */
function treeOf(pid: number): number[] {
  const parentOf = parents();
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const [child, parent] of parentOf) if (parent === tree[i]) tree.push(child);
  }
  return tree;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone already
  }
}

/**
 * Stops `pid`'s whole tree (SIGSTOP, until no new process appears: a stopped process neither forks nor
 * dies, so none is reparented away while the tree is read), then kills every one of them (SIGKILL).
 * Returns the PIDs killed.
 */
export function killTree(pid: number): number[] {
  const stopped = new Set<number>();
  for (;;) {
    const fresh = treeOf(pid).filter((p) => !stopped.has(p));
    if (fresh.length === 0) break;
    for (const p of fresh) {
      signal(p, "SIGSTOP");
      stopped.add(p);
    }
  }
  for (const p of stopped) signal(p, "SIGKILL");
  return [...stopped];
}
