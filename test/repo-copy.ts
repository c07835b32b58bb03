/**
 * A copy of the repository for tests that run its commands elsewhere: every tracked file as the working
 * tree has it (a file deleted there is left out), with node_modules linked from this working copy.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PROJECT_ROOT } from "../offline/engine";

/** A new temporary directory holding the copy; the caller removes it. */
export function copyTrackedFiles(prefix: string): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: PROJECT_ROOT, encoding: "utf8" })
    .split("\0")
    .filter((file) => file !== "" && fs.existsSync(path.join(PROJECT_ROOT, file)));
  for (const file of tracked) {
    fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    fs.copyFileSync(path.join(PROJECT_ROOT, file), path.join(copy, file));
  }
  fs.symlinkSync(path.join(PROJECT_ROOT, "node_modules"), path.join(copy, "node_modules"));
  return copy;
}
