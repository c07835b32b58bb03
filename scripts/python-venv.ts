/**
 * The virtual environments of the Python tools the lints outside `npm test` run (`npm run lint:iam`,
 * `npm run lint:zizmor`). Each is filled from a requirements file that pins every file by hash
 * (`pip install --require-hashes --no-deps`), in the cache `npm run tools` uses, and named by the
 * requirements' hash, so a change of pins builds a new one. Needs `python3` with `venv`, and PyPI the
 * first time.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { cacheRoot } from "./tools";

/** The venv directory of `name` for `requirements`: `<cache>/<name>-<first 12 hex of its sha256>`. */
export function venvDir(name: string, requirements: string, root = cacheRoot()): string {
  const hash = createHash("sha256").update(fs.readFileSync(requirements)).digest("hex").slice(0, 12);
  return path.join(root, `${name}-${hash}`);
}

/**
 * The `bin` directory of the venv of `name`, created and filled from `requirements` when missing or left
 * half-installed (it is complete once `.installed` is written). `label` prefixes the progress line.
 */
export function pinnedVenv(name: string, requirements: string, label: string): string {
  const venv = venvDir(name, requirements);
  const bin = path.join(venv, "bin");
  const ready = path.join(venv, ".installed");
  if (!fs.existsSync(ready)) {
    console.log(`${label}: installing ${path.basename(path.dirname(requirements))} into ${venv}`);
    fs.rmSync(venv, { recursive: true, force: true });
    execFileSync("python3", ["-m", "venv", venv], { stdio: "inherit" });
    const pip = ["-m", "pip", "install", "--quiet", "--disable-pip-version-check"];
    execFileSync(path.join(bin, "python"), [...pip, "--require-hashes", "--no-deps", "-r", requirements], {
      stdio: "inherit",
    });
    fs.writeFileSync(ready, "");
  }
  return bin;
}
