/**
 * `npm run tools`: finds or builds the local control plane's programs and the real Pulumi engine's
 * (tools/catalog.ts) into a cache directory outside the repository, one progress line per tool. A binary
 * is used as it is when it is already in the cache from the same wrapper module, or on PATH at the pinned
 * version; otherwise its wrapper module is built with the Go toolchain. Then the engine's Node.js plugins
 * of this checkout are written beside them (tools/plugins.ts). The last line printed is `TOOLS_BIN=<dir>`.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { TOOLS_ROOT, TOOL_BUILDS, type ToolBuild, type VersionCheck, toolVersion } from "../tools/catalog";
import { writePlugins } from "../tools/plugins";

/** The cache root: the same one .ci/node.sh uses for Node. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return (
    env.EKS_CALICO_CACHE ?? path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "eks-calico")
  );
}

/** Where the tools' binaries are, built or not. */
export function toolsBin(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), "bin");
}

function elapsed(since: number): string {
  const seconds = Math.round((Date.now() - since) / 1000);
  return seconds < 60
    ? `${seconds}s`
    : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
}

/** What the binaries of a build depend on: its wrapper files, the Go toolchain and the link flags. */
function buildKey(build: ToolBuild, goVersion: string, ldflags: string): string {
  const hash = createHash("sha256");
  const dir = path.join(TOOLS_ROOT, build.module);
  for (const file of fs.readdirSync(dir).sort()) {
    if (/\.(mod|sum|go)$/.test(file)) hash.update(`${file}\0`).update(fs.readFileSync(path.join(dir, file)));
  }
  return hash.update(goVersion).update(ldflags).digest("hex");
}

/** The command that shows a binary's version, and the text it must print. */
function versionCommand(
  file: string,
  check: VersionCheck,
): { command: string; args: string[]; expect: string } {
  return "builtFrom" in check
    ? // Its `mod` line (a package built from the upstream module) or a `dep` line (the wrapper's main).
      { command: "go", args: ["version", "-m", file], expect: `\t${check.builtFrom}\t` }
    : { command: file, args: check.args, expect: check.expect };
}

/** Whether `binary` shows the pinned version. */
function hasVersion(file: string, build: ToolBuild, name: string, version: string): boolean {
  const { command, args, expect } = versionCommand(file, build.versionCheck(name, version));
  const run = spawnSync(command, args, { encoding: "utf8", timeout: 20_000 });
  return run.status === 0 && `${run.stdout}${run.stderr}`.includes(expect);
}

/** A binary of that name on PATH (outside the cache), or undefined. */
function onPath(name: string, bin: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir === "" || path.resolve(dir) === path.resolve(bin)) continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Runs a command, printing a line every minute it is still running; rejects with its output's tail. */
function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; label: string },
) {
  return new Promise<void>((resolve, reject) => {
    const started = Date.now();
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setInterval(
      () => console.log(`tools: ${options.label}: still building (${elapsed(started)})`),
      60_000,
    );
    child.on("error", (error) => {
      clearInterval(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearInterval(timer);
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(" ")} exited ${code}:\n${output.trim()}`));
    });
  });
}

function goVersion(): string {
  const go = spawnSync("go", ["env", "GOVERSION"], { encoding: "utf8" });
  if (go.status !== 0) {
    throw new Error("the Go toolchain is not on PATH (go env GOVERSION failed): install Go 1.26 or newer");
  }
  return go.stdout.trim();
}

/**
 * The directory a wrapper is built in: its own folder, or, when its main embeds upstream files, a copy of
 * it in the cache with those files beside it (the repository stays as committed).
 */
function buildDirectory(build: ToolBuild, env: NodeJS.ProcessEnv): string {
  const source = path.join(TOOLS_ROOT, build.module);
  if (build.embeds === undefined) return source;
  const dir = path.join(cacheRoot(env), "go", "src", build.module);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const file of fs.readdirSync(source).filter((f) => /\.(mod|sum|go)$/.test(f))) {
    fs.copyFileSync(path.join(source, file), path.join(dir, file));
  }
  // Downloaded first when the module cache is cold (`go list -m` would name no directory then).
  const download = spawnSync("go", ["mod", "download", "-json", build.upstream], {
    cwd: dir,
    env,
    encoding: "utf8",
  });
  const upstreamDir = (() => {
    try {
      return (JSON.parse(download.stdout) as { Dir?: string }).Dir ?? "";
    } catch {
      return "";
    }
  })();
  if (download.status !== 0 || upstreamDir === "") {
    throw new Error(
      `tools: ${build.module}: go mod download ${build.upstream} failed:\n${download.stdout}${download.stderr}`.trim(),
    );
  }
  for (const [name, from] of Object.entries(build.embeds)) {
    fs.copyFileSync(path.join(upstreamDir, from), path.join(dir, name));
    fs.chmodSync(path.join(dir, name), 0o644);
  }
  return dir;
}

/** Finds or builds one wrapper module's binaries into `bin`; prints a line per binary. */
async function provide(build: ToolBuild, bin: string, env: NodeJS.ProcessEnv, go: string): Promise<void> {
  const version = toolVersion(build);
  const ldflags = ["-s", "-w", ...build.versionFlags(version).map((flag) => `-X ${flag}`)].join(" ");
  const toolchain = build.toolchain ?? go;
  const key = buildKey(build, toolchain, ldflags);
  const stamp = path.join(bin, `.${build.module}.build`);
  const names = Object.keys(build.binaries);
  const started = Date.now();

  const cached = fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === key;
  const missing = names.filter((name) => !(cached && fs.existsSync(path.join(bin, name))));
  for (const name of names.filter((n) => !missing.includes(n))) {
    console.log(`tools: ${name} ${version}: cached in ${bin} (${elapsed(started)})`);
  }
  // A binary already on PATH at the pinned version is used as it is.
  const toBuild = missing.filter((name) => {
    const found = onPath(name, bin);
    if (found === undefined || !hasVersion(found, build, name, version)) return true;
    fs.rmSync(path.join(bin, name), { force: true });
    fs.symlinkSync(found, path.join(bin, name));
    console.log(`tools: ${name} ${version}: using ${found} from PATH (${elapsed(started)})`);
    return false;
  });
  if (toBuild.length === 0) return;

  const label = `${toBuild.join(", ")} ${version}`;
  console.log(
    `tools: ${label}: building from tools/${build.module} (${build.upstream} ${version}, ${toolchain})`,
  );
  // The toolchain a build names is fetched from the module proxy; the others use the installed Go only.
  const buildEnv = build.toolchain === undefined ? env : { ...env, GOTOOLCHAIN: build.toolchain };
  const dir = buildDirectory(build, buildEnv);
  // A wrapper's own Go code (a main package) is vetted before it is built.
  if (fs.readdirSync(dir).some((file) => file.endsWith(".go"))) {
    // With the build's own flags, so the packages vet compiles are the ones the build then reuses.
    await run("go", ["vet", "-trimpath", "."], {
      cwd: dir,
      env: buildEnv,
      label: `go vet tools/${build.module}`,
    }).catch((error: Error) => {
      throw new Error(`tools: ${label}: go vet failed: ${error.message}`, { cause: error });
    });
  }
  const packages = toBuild.map((name) => build.binaries[name]);
  const output = packages.length === 1 ? path.join(bin, toBuild[0]) : `${bin}${path.sep}`;
  try {
    await run("go", ["build", "-trimpath", `-ldflags=${ldflags}`, "-o", output, ...packages], {
      cwd: dir,
      env: buildEnv,
      label,
    });
  } catch (error) {
    throw new Error(`tools: ${label}: build failed: ${(error as Error).message}`, { cause: error });
  }
  for (const name of toBuild) {
    if (!hasVersion(path.join(bin, name), build, name, version)) {
      const { command, args, expect } = versionCommand(name, build.versionCheck(name, version));
      throw new Error(
        `tools: ${name}: built, but \`${command} ${args.join(" ")}\` does not print "${expect}"`,
      );
    }
    console.log(`tools: ${name} ${version}: built (${elapsed(started)})`);
  }
  if (toBuild.length === missing.length) fs.writeFileSync(stamp, key);
}

async function main(): Promise<void> {
  const root = cacheRoot();
  const bin = toolsBin();
  fs.mkdirSync(bin, { recursive: true });
  const go = goVersion();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GOMODCACHE: path.join(root, "go", "mod"),
    GOCACHE: path.join(root, "go", "build"),
    // Static binaries from the pinned wrappers only: no cgo, no toolchain download unless a build names
    // one (ToolBuild.toolchain), go.sum as committed.
    CGO_ENABLED: "0",
    GOTOOLCHAIN: "local",
    GOFLAGS: "-mod=readonly",
  };
  const started = Date.now();
  console.log(`tools: ${go}, cache ${root}`);
  for (const build of TOOL_BUILDS) await provide(build, bin, env, go);
  for (const line of writePlugins(bin)) console.log(`tools: ${line}`);
  console.log(`tools: all ready (${elapsed(started)})`);
  console.log(`TOOLS_BIN=${bin}`);
}

if (require.main === module) {
  main().catch((error: Error) => {
    console.error(error.message);
    process.exit(1);
  });
}
