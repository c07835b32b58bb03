/**
 * The programs the local control plane runs, each built from a wrapper module in this folder (its own
 * go.mod and go.sum) that pins the upstream module. The version of each comes from the wrapper's go.mod,
 * so it is written down once. Wrappers exist because `go install mod@version` refuses a module whose
 * go.mod has replace directives (golang/go#44840), and Kubernetes and etcd have them.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export const TOOLS_ROOT = __dirname;

/** One `go build` of a wrapper module, giving one or more binaries. */
export interface ToolBuild {
  /** Folder under tools/ holding the wrapper's go.mod and go.sum. */
  readonly module: string;
  /** The upstream module whose required version is the tools' version. */
  readonly upstream: string;
  /** Binary name to Go package path (`.` is the wrapper's own main package). */
  readonly binaries: Readonly<Record<string, string>>;
  /** `-X` flags that stamp the version into the binary as the upstream release build does. */
  readonly versionFlags: (version: string) => string[];
  /** The arguments that make a binary print its version, and the text it prints for `version`. */
  readonly versionCheck: (binary: string, version: string) => { args: string[]; expect: string };
}

/** `v1.35.4` -> `1`, `35`. */
function majorMinor(version: string): [string, string] {
  const [major = "", minor = ""] = version.replace(/^v/, "").split(".");
  return [major, minor];
}

export const TOOL_BUILDS: readonly ToolBuild[] = [
  {
    module: "kubernetes",
    upstream: "k8s.io/kubernetes",
    binaries: {
      "kube-apiserver": "k8s.io/kubernetes/cmd/kube-apiserver",
      "kube-controller-manager": "k8s.io/kubernetes/cmd/kube-controller-manager",
      "kube-scheduler": "k8s.io/kubernetes/cmd/kube-scheduler",
      kubectl: "k8s.io/kubernetes/cmd/kubectl",
    },
    // What kubernetes' hack/lib/version.sh stamps (gitVersion, gitMajor, gitMinor).
    versionFlags: (version) => {
      const [major, minor] = majorMinor(version);
      return [
        `k8s.io/component-base/version.gitVersion=${version}`,
        `k8s.io/component-base/version.gitMajor=${major}`,
        `k8s.io/component-base/version.gitMinor=${minor}`,
        "k8s.io/component-base/version.gitTreeState=clean",
      ];
    },
    versionCheck: (binary, version) =>
      binary === "kubectl"
        ? { args: ["version", "--client"], expect: `Client Version: ${version}` }
        : { args: ["--version"], expect: `Kubernetes ${version}` },
  },
  {
    module: "etcd",
    upstream: "go.etcd.io/etcd/server/v3",
    binaries: { etcd: "." },
    // etcd's version is a constant of go.etcd.io/etcd/api/v3/version at the release.
    versionFlags: () => [],
    versionCheck: (_binary, version) => ({
      args: ["--version"],
      expect: `etcd Version: ${version.replace(/^v/, "")}`,
    }),
  },
  {
    module: "kwok",
    upstream: "sigs.k8s.io/kwok",
    binaries: { kwok: "sigs.k8s.io/kwok/cmd/kwok" },
    // kwok's hack/releases.sh stamps consts.Version.
    versionFlags: (version) => [`sigs.k8s.io/kwok/pkg/consts.Version=${version}`],
    versionCheck: (_binary, version) => ({ args: ["--version"], expect: version }),
  },
];

/** The version of `upstream` that a wrapper module's go.mod requires. */
export function requiredVersion(module: string, upstream: string, root = TOOLS_ROOT): string {
  const goMod = fs.readFileSync(path.join(root, module, "go.mod"), "utf8");
  const escaped = upstream.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const match = new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, "m").exec(goMod);
  if (match === null) throw new Error(`tools/${module}/go.mod does not require ${upstream}`);
  return match[1];
}

/** Every binary the tools give, by name. */
export function toolNames(): string[] {
  return TOOL_BUILDS.flatMap((build) => Object.keys(build.binaries));
}
