/**
 * The programs the local control plane and the real Pulumi engine run, each built from a wrapper module in
 * this folder (its own go.mod and go.sum) that pins the upstream module. The version of each comes from
 * the wrapper's go.mod, so it is written down once. Wrappers exist because `go install mod@version`
 * refuses a module whose go.mod has replace directives (golang/go#44840), and Kubernetes, etcd, the Pulumi
 * CLI and the Kubernetes provider have them.
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
  /**
   * How a built binary shows its version: the arguments that make it print the text `expect`, or (for a
   * plugin that has no version flag) the module and version `go version -m` must list it built from (a
   * -trimpath build records no -ldflags, so the stamp itself cannot be read back).
   */
  readonly versionCheck: (binary: string, version: string) => VersionCheck;
  /**
   * The release the pinned version is, when go.mod can only require it as a pseudo-version (a module
   * tagged only at another major version): what the binary is stamped with and reported as.
   */
  readonly release?: string;
  /**
   * Files the wrapper's main package embeds, by name, copied before the build from the upstream module's
   * directory (paths relative to it): generated files upstream's own build makes are not in the module zip.
   */
  readonly embeds?: Readonly<Record<string, string>>;
  /**
   * The Go toolchain the build runs on, when the upstream module needs a newer Go than the installed one:
   * fetched from the module proxy (GOTOOLCHAIN), as `go` does for a go.mod that asks for it.
   */
  readonly toolchain?: string;
}

export type VersionCheck = { args: string[]; expect: string } | { builtFrom: string };

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
  {
    module: "pulumi",
    upstream: "github.com/pulumi/pulumi/pkg/v3",
    binaries: { pulumi: "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi" },
    // As pulumi's .goreleaser.yml stamps it; the Automation API refuses a CLI whose version does not parse.
    versionFlags: (version) => [`github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=${version}`],
    versionCheck: (_binary, version) => ({ args: ["version"], expect: version }),
  },
  {
    module: "pulumi-kubernetes",
    upstream: "github.com/pulumi/pulumi-kubernetes/provider/v4",
    release: "v4.25.0",
    binaries: { "pulumi-resource-kubernetes": "." },
    // As pulumi-kubernetes' Makefile stamps it (no leading v).
    versionFlags: (version) => [
      `github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version.Version=${version.replace(/^v/, "")}`,
    ],
    // A provider plugin serves gRPC and has no version flag: its build info names the module it came from.
    versionCheck: () => {
      const upstream = "github.com/pulumi/pulumi-kubernetes/provider/v4";
      return { builtFrom: `${upstream}\t${requiredVersion("pulumi-kubernetes", upstream)}` };
    },
    embeds: {
      "schema.json": "cmd/pulumi-resource-kubernetes/schema.json",
      "terraform-mapping.json": "cmd/pulumi-resource-kubernetes/terraform-mapping.json",
    },
  },
  {
    module: "karpenter",
    upstream: "sigs.k8s.io/karpenter",
    // v1.15.0's go.mod asks for Go 1.26.9; the proxy serves go1.27.3.
    toolchain: "go1.27.3",
    binaries: { "karpenter-kwok": "sigs.k8s.io/karpenter/kwok" },
    // What karpenter's Makefile stamps (pkg/operator.Version).
    versionFlags: (version) => [`sigs.k8s.io/karpenter/pkg/operator.Version=${version}`],
    // The controller has no version flag: its build info names the module it came from.
    versionCheck: (_binary, version) => ({ builtFrom: `sigs.k8s.io/karpenter\t${version}` }),
  },
];

/** The version a build's binaries are: its release, else the version its go.mod requires of upstream. */
export function toolVersion(build: ToolBuild, root = TOOLS_ROOT): string {
  return build.release ?? requiredVersion(build.module, build.upstream, root);
}

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
