/**
 * The tool wrappers without Go: each is a committed module with a go.sum, its versions agree with what
 * the stacks run, and the Kubernetes wrapper pins every staging repository to the matching release.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { TOOLS_ROOT, TOOL_BUILDS, requiredVersion, toolNames, toolVersion } from "../tools/catalog";
import { listStacks, loadStackConfig } from "../offline/engine";
import { REMOVER_IMAGE } from "../components/calico/defaults";

function goMod(module: string): string {
  return fs.readFileSync(path.join(TOOLS_ROOT, module, "go.mod"), "utf8");
}

describe("tool wrapper modules", () => {
  it("each wrapper has a go.mod and a committed go.sum, and requires its upstream at an exact release", () => {
    for (const build of TOOL_BUILDS) {
      assert.ok(fs.existsSync(path.join(TOOLS_ROOT, build.module, "go.sum")), `tools/${build.module}/go.sum`);
      const required = requiredVersion(build.module, build.upstream);
      // A pseudo-version only where the release cannot be required by its tag, and then named.
      if (build.release === undefined) assert.match(required, /^v\d+\.\d+\.\d+$/, build.module);
      else assert.match(required, /^v\d+\.0\.0-\d{14}-[0-9a-f]{12}$/, build.module);
      assert.match(toolVersion(build), /^v\d+\.\d+\.\d+$/, build.module);
    }
  });

  it("gives the binaries the local cluster and the real engine run, each from one wrapper", () => {
    assert.deepEqual(toolNames().sort(), [
      "etcd",
      "karpenter-kwok",
      "kube-apiserver",
      "kube-controller-manager",
      "kube-scheduler",
      "kubectl",
      "kwok",
      "pulumi",
      "pulumi-resource-kubernetes",
    ]);
  });

  it("builds the Pulumi CLI at the @pulumi/pulumi version package-lock.json installs, with its SDK", () => {
    const lock = JSON.parse(fs.readFileSync(path.join(TOOLS_ROOT, "..", "package-lock.json"), "utf8")) as {
      packages: Record<string, { version: string }>;
    };
    const sdk = `v${lock.packages["node_modules/@pulumi/pulumi"].version}`;
    assert.equal(requiredVersion("pulumi", "github.com/pulumi/pulumi/pkg/v3"), sdk);
    assert.equal(requiredVersion("pulumi", "github.com/pulumi/pulumi/sdk/v3"), sdk);
  });

  it("builds pulumi-resource-kubernetes v4.25.0 from that tag's commit, against its own pulumi pkg/v3", () => {
    // github.com/pulumi/pulumi-kubernetes tag v4.25.0 is commit f47bc2d6f199 (the module proxy's info).
    assert.match(
      requiredVersion("pulumi-kubernetes", "github.com/pulumi/pulumi-kubernetes/provider/v4"),
      /-f47bc2d6f199$/,
    );
    assert.equal(requiredVersion("pulumi-kubernetes", "github.com/pulumi/pulumi/pkg/v3"), "v3.215.0");
    const build = TOOL_BUILDS.find((b) => b.module === "pulumi-kubernetes");
    assert.equal(build?.release, "v4.25.0");
    assert.deepEqual(build?.versionCheck("pulumi-resource-kubernetes", "v4.25.0"), {
      builtFrom: "github.com/pulumi/pulumi-kubernetes/provider/v4\tv4.0.0-20260115033456-f47bc2d6f199",
    });
  });

  it("builds Karpenter's kwok provider on the Go its go.mod asks for, checked by the module it came from", () => {
    const build = TOOL_BUILDS.find((b) => b.module === "karpenter");
    assert.ok(build);
    assert.equal(requiredVersion("karpenter", "sigs.k8s.io/karpenter"), "v1.15.0");
    // sigs.k8s.io/karpenter v1.15.0 go.mod: `go 1.26.9`; the installed Go is 1.26.
    assert.equal(build.toolchain, "go1.27.3");
    assert.match(goMod("karpenter"), /^go 1\.26\.9$/m);
    assert.deepEqual(build.versionCheck("karpenter-kwok", "v1.15.0"), {
      builtFrom: "sigs.k8s.io/karpenter\tv1.15.0",
    });
  });

  it("runs the Kubernetes minor every stack file pins", () => {
    const minor = requiredVersion("kubernetes", "k8s.io/kubernetes").replace(/^v(\d+\.\d+)\..*$/, "$1");
    const pinned = listStacks()
      .map((stack) => loadStackConfig(stack).values["eks-calico:cluster"])
      .map((raw) => (raw === undefined ? undefined : (JSON.parse(raw) as { version?: string }).version))
      .filter((version): version is string => version !== undefined);
    assert.ok(pinned.length > 0, "no stack file pins cluster.version");
    assert.deepEqual([...new Set(pinned)], [minor]);
  });

  it("runs the startup taint's remover on the kubectl release the local cluster is built from", () => {
    // kubectl keeps its version skew with the API server within one minor: the stacks pin this minor.
    assert.equal(REMOVER_IMAGE.tag, requiredVersion("kubernetes", "k8s.io/kubernetes"));
  });

  it("pins each Kubernetes staging repository to the release of k8s.io/kubernetes (v1.X.Y -> v0.X.Y)", () => {
    const version = requiredVersion("kubernetes", "k8s.io/kubernetes");
    const staging = version.replace(/^v1\./, "v0.");
    const replaces = [...goMod("kubernetes").matchAll(/^\s*(k8s\.io\/\S+) => (k8s\.io\/\S+) (v\S+)$/gm)];
    assert.ok(replaces.length >= 25, `only ${replaces.length} replaces`);
    for (const [, from, to, pinned] of replaces) {
      assert.equal(to, from);
      assert.equal(pinned, staging, from);
    }
    // The staging repositories' own requirement lines are what a real build needs; api and client-go at least.
    for (const repo of ["k8s.io/api", "k8s.io/apimachinery", "k8s.io/apiserver", "k8s.io/client-go"]) {
      assert.ok(
        replaces.some(([, from]) => from === repo),
        repo,
      );
    }
  });

  it("requires etcd's sibling modules at the server's release", () => {
    const version = requiredVersion("etcd", "go.etcd.io/etcd/server/v3");
    for (const sibling of ["api/v3", "client/pkg/v3", "client/v3", "pkg/v3"]) {
      assert.equal(requiredVersion("etcd", `go.etcd.io/etcd/${sibling}`), version, sibling);
    }
  });

  it("docs/real-cluster.md lists every tool at the version its wrapper pins", () => {
    const doc = fs.readFileSync(path.join(TOOLS_ROOT, "..", "docs", "real-cluster.md"), "utf8");
    const rows = [...doc.matchAll(/^\| ([a-z-]+)\s+\| (v\S+)\s+\| `([a-z-]+)`: (\S+)\s+\|$/gm)].map(
      ([, name, version, module, upstream]) => ({ name, version, module, upstream }),
    );
    const expected = TOOL_BUILDS.flatMap((build) =>
      Object.keys(build.binaries).map((name) => ({
        name,
        version: toolVersion(build),
        module: build.module,
        upstream: build.upstream,
      })),
    );
    assert.deepEqual(rows, expected);
  });

  it("stamps the version each release build stamps, and checks it after building", () => {
    const kubernetes = TOOL_BUILDS.find((b) => b.module === "kubernetes");
    assert.ok(kubernetes);
    assert.deepEqual(kubernetes.versionFlags("v1.35.4").slice(0, 3), [
      "k8s.io/component-base/version.gitVersion=v1.35.4",
      "k8s.io/component-base/version.gitMajor=1",
      "k8s.io/component-base/version.gitMinor=35",
    ]);
    assert.deepEqual(kubernetes.versionCheck("kubectl", "v1.35.4"), {
      args: ["version", "--client"],
      expect: "Client Version: v1.35.4",
    });
    assert.deepEqual(kubernetes.versionCheck("kube-apiserver", "v1.35.4"), {
      args: ["--version"],
      expect: "Kubernetes v1.35.4",
    });
  });
});
