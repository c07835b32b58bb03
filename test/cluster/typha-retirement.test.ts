/**
 * The Typha retirement step (components/calico/takeover/typha-retirement.ts) against a real API server,
 * with calico-node pods that are scheduled but not ready yet, as during a rollout or while a node joins:
 * with nothing of the old Typha left it does nothing, an old object left is deleted once every pod names
 * the new Typha, and a pod that still names the old one keeps it.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LocalCluster } from "../../local-cluster/deploy";
import { waitFor } from "../../local-cluster/api";
import { type RetirementInputs, retirementProvider } from "../../components/calico/takeover/typha-retirement";

const NAMESPACE = "kube-system";

/** A pod template like calico-node's, naming `typhaService` as Felix's Typha. */
function calicoNodeLike(typhaService: string) {
  return {
    metadata: { labels: { "k8s-app": "calico-node" } },
    spec: {
      tolerations: [{ operator: "Exists" }],
      containers: [
        {
          name: "calico-node",
          image: "quay.io/calico/node:v3.31.7",
          env: [{ name: "FELIX_TYPHAK8SSERVICENAME", value: typhaService }],
        },
      ],
    },
  };
}

describe("The Typha retirement step on a real API server, calico-node not ready yet", function () {
  this.timeout(10 * 60_000);

  it("does nothing with nothing left, retires what is left once every pod names the new Typha, and keeps it while one names the old", async function () {
    // Pods start 10 minutes after they are scheduled: none is ready while the test runs.
    const cluster = await LocalCluster.start("dev", {
      podStartSeconds: 600,
      dir: path.join(os.tmpdir(), `eks-calico-retirement-${process.pid}`),
    });
    try {
      const apply = (object: object) => {
        const result = cluster.kubectl(["apply", "-f", "-"], JSON.stringify(object));
        assert.ok(result.ok, result.output);
      };
      const daemonSet = (typhaService: string) => {
        const pod = calicoNodeLike(typhaService);
        apply({
          apiVersion: "apps/v1",
          kind: "DaemonSet",
          metadata: { name: "calico-node", namespace: NAMESPACE },
          spec: {
            selector: { matchLabels: pod.metadata.labels },
            // Pods keep their spec until deleted, so the test decides which Typha each names.
            updateStrategy: { type: "OnDelete" },
            template: pod,
          },
        });
      };
      const inputs: RetirementInputs = {
        kubeconfig: fs.readFileSync(cluster.state.kubeconfig, "utf8"),
        namespace: NAMESPACE,
        calicoNode: "calico-node",
        retired: "calico-typha",
        serving: "calico-typha-takeover",
      };
      const retire = async () =>
        ((await retirementProvider.create?.(inputs)) as { outs: { deleted: string[] } }).outs.deleted;
      // One scheduled pod per node (kwok starts none of them for 10 minutes).
      const podsScheduled = (what: string) =>
        waitFor(
          what,
          async () => {
            const nodes = await cluster.podNodes(NAMESPACE, "k8s-app=calico-node");
            const scheduled = nodes.filter((n) => n !== "(unscheduled)");
            return scheduled.length === cluster.state.nodes && nodes.length === scheduled.length
              ? true
              : undefined;
          },
          60_000,
        );

      daemonSet("calico-typha");
      await podsScheduled("calico-node pods naming the old Typha");
      assert.deepEqual(await retire(), [], "nothing left: nothing to check, nothing refused");

      const oldService = {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "calico-typha", namespace: NAMESPACE },
        spec: { selector: { "k8s-app": "calico-typha" }, ports: [{ port: 5473 }] },
      };
      apply(oldService);
      await assert.rejects(
        retire(),
        /pod calico-node-\w+ on \S+ names Typha Service calico-typha, not calico-typha-takeover/,
      );
      const kept = cluster.kubectl(["get", "service", "calico-typha", "-n", NAMESPACE]);
      assert.ok(kept.ok, `the old Typha stays while a pod names it: ${kept.output}`);

      daemonSet("calico-typha-takeover");
      const deleted = cluster.kubectl([
        "delete",
        "pods",
        "-n",
        NAMESPACE,
        "-l",
        "k8s-app=calico-node",
        "--wait",
      ]);
      assert.ok(deleted.ok, deleted.output);
      await podsScheduled("calico-node pods naming the new Typha");
      assert.deepEqual(
        await retire(),
        [`Service ${NAMESPACE}/calico-typha`],
        "pods not ready yet do not block",
      );
      const gone = cluster.kubectl(["get", "service", "calico-typha", "-n", NAMESPACE]);
      assert.ok(!gone.ok && /NotFound|not found/.test(gone.output), gone.output);
    } finally {
      await cluster.stop();
    }
  });
});
