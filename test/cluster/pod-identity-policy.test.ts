/**
 * The egress rule docs/try-a-policy.md gives a pod on EKS Pod Identity, applied as written to a real API
 * server beside a default-deny egress policy, and read back as the server stored it (defaults filled in):
 * it admits every address and port the pod's SDK asks for its credentials at, taken from the EKS User
 * Guide's agent addresses (test/fixtures/eks-pod-identity-agent.json), and nothing else. Whether Felix then
 * lets the packets through needs a node that runs it, which kwok nodes do not: the probe proves
 * enforcement on a real cluster (docs/probe.md).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { BlockList, isIPv6 } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { parseAllDocuments } from "yaml";
import { LocalCluster } from "../../local-cluster/deploy";

const DOCS = path.join(__dirname, "..", "..", "docs", "try-a-policy.md");
const AGENT = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "fixtures", "eks-pod-identity-agent.json"), "utf8"),
) as { credentialsUris: string[] };

interface StoredPolicy {
  metadata: { name: string; namespace: string };
  spec: {
    podSelector: Record<string, unknown>;
    policyTypes: string[];
    egress?: { to?: { ipBlock?: { cidr: string } }[]; ports?: { protocol: string; port: number }[] }[];
  };
}

/** The YAML block of the page's "Pods on EKS Pod Identity" section. */
function documentedPolicy(): string {
  const page = fs.readFileSync(DOCS, "utf8");
  const section = page.slice(page.indexOf("## Pods on EKS Pod Identity"));
  const block = /```yaml\n([^]*?)```/.exec(section)?.[1];
  assert.ok(block, "the section has a YAML block");
  return block;
}

/** Whether an egress rule of `policy` admits TCP to `host:port`, by NetworkPolicy's rules. */
function admits(policy: StoredPolicy, host: string, port: number): boolean {
  return (policy.spec.egress ?? []).some((rule) => {
    const blocks = new BlockList();
    for (const peer of rule.to ?? []) {
      if (peer.ipBlock === undefined) continue;
      const [network, prefix] = peer.ipBlock.cidr.split("/");
      blocks.addSubnet(network, Number(prefix), isIPv6(network) ? "ipv6" : "ipv4");
    }
    const to = blocks.check(host, isIPv6(host) ? "ipv6" : "ipv4");
    const ports = rule.ports ?? [];
    return to && (ports.length === 0 || ports.some((p) => p.protocol === "TCP" && p.port === port));
  });
}

describe("the documented Pod Identity egress rule, on a real API server", function () {
  this.timeout(10 * 60_000);
  let cluster: LocalCluster;
  before(async () => {
    cluster = await LocalCluster.start("dev", {
      dir: path.join(os.tmpdir(), `eks-calico-pod-identity-${process.pid}`),
    });
  });
  after(async () => cluster?.stop());

  it("is accepted beside a default-deny egress, and admits each address the agent serves, only on its port", () => {
    const text = documentedPolicy();
    const [doc] = parseAllDocuments(text).map((d) => d.toJS() as StoredPolicy);
    const namespace = doc.metadata.namespace;
    const run = (args: string[], input?: string) => {
      const result = cluster.kubectl(args, input);
      assert.ok(result.ok, result.output);
      return result.output;
    };
    run(["create", "namespace", namespace]);
    const denyAll = { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy" };
    run(
      ["apply", "-f", "-"],
      JSON.stringify({
        ...denyAll,
        metadata: { name: "default-deny-egress", namespace },
        spec: { podSelector: {}, policyTypes: ["Egress"] },
      }),
    );
    run(["apply", "-f", "-"], text);
    const stored = JSON.parse(
      run(["get", "networkpolicy", doc.metadata.name, "-n", namespace, "-o", "json"]),
    ) as StoredPolicy;
    assert.deepEqual(stored.spec.policyTypes, ["Egress"]);
    assert.deepEqual(stored.spec.podSelector, {}, "every pod of the namespace");
    for (const uri of AGENT.credentialsUris) {
      const url = new URL(uri);
      const host = url.hostname.replace(/^\[|\]$/g, "");
      // An http URL without a port is port 80.
      const port = url.port === "" ? 80 : Number(url.port);
      assert.ok(admits(stored, host, port), `${uri} is admitted`);
      assert.ok(!admits(stored, host, 443), `${host}:443 is not`);
    }
    assert.ok(!admits(stored, "169.254.169.254", 80), "the instance metadata service is not admitted");
  });
});
