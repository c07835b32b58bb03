/**
 * Calico's RBAC as the API server judges it: after the real engine deploys each supported line (the
 * second as an upgrade of the first), `kubectl auth can-i --as=system:serviceaccount:<ns>:<sa>` must
 * answer yes to every permission upstream's policy-only manifest grants (test/fixtures/upstream-rbac.yaml)
 * and no to each this program excludes with a reason (upstream-rbac-exclusions.yaml).
 */
import * as assert from "node:assert/strict";
import { CALICO_RELEASES } from "../../components/calico/releases";
import { SUPPORTED_CALICO_MINORS } from "../../components/calico/defaults";
import { WORKLOADS, describePermission, upstreamPermissions, type Permission } from "../upstream-rbac";
import { EngineCase } from "./engine-case";

/** kubectl auth can-i's arguments for `p`: a subresource goes in --subresource, names after a slash. */
function canIArgs(p: Permission, user: string): string[] {
  const [resource, subresource] = p.resource.split("/");
  const qualified = p.apiGroup === "" ? resource : `${resource}.${p.apiGroup}`;
  const named = p.resourceNames ? `${qualified}/${p.resourceNames[0]}` : qualified;
  return [
    "auth",
    "can-i",
    p.verb,
    named,
    ...(subresource ? [`--subresource=${subresource}`] : []),
    "--all-namespaces",
    `--as=${user}`,
  ];
}

describe("Calico's RBAC on a real API server, against upstream's policy-only manifest", function () {
  this.timeout(20 * 60_000);

  const releases = SUPPORTED_CALICO_MINORS.map((line) => CALICO_RELEASES[line].at(-1) as string);

  it(`${releases.join(", then ")}: kubectl auth can-i grants calico-node and Typha what upstream does, less the exclusions`, async function () {
    const c = await EngineCase.start("Calico RBAC", {
      stack: "dev",
      config: { "eks-calico:calico.version": releases[0] },
    });
    try {
      for (const line of SUPPORTED_CALICO_MINORS) {
        const version = CALICO_RELEASES[line].at(-1) as string;
        const up = await c.up(version, { "eks-calico:calico.version": version });
        const namespace = String((up.outputs.calico as { namespace: string }).namespace);
        const wrong: string[] = [];
        let asked = 0;
        for (const workload of WORKLOADS) {
          const user = `system:serviceaccount:${namespace}:${workload}`;
          const { required, excluded } = upstreamPermissions(line, workload);
          for (const [permissions, expected] of [
            [required, "yes"],
            [excluded, "no"],
          ] as const) {
            for (const permission of permissions) {
              const answer = c.cluster.kubectl(canIArgs(permission, user));
              asked += 1;
              // can-i prints yes or no last (after any warning about a kind the server does not serve).
              const said = answer.output.split("\n").at(-1);
              if (said !== expected)
                wrong.push(`${workload}: ${describePermission(permission)}: ${answer.output}`);
            }
          }
        }
        assert.deepEqual(wrong, [], `${version}: kubectl auth can-i disagrees with upstream's rules`);
        assert.ok(asked > 100, `${asked} questions asked on ${version}`);
      }
    } finally {
      await c.stop();
    }
  });
});
