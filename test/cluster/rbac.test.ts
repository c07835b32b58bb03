/**
 * Calico's RBAC as the API server judges it: after the real engine deploys each supported line (the
 * second as an upgrade of the first), `kubectl auth can-i --as=system:serviceaccount:<ns>:<sa>` (a
 * SubjectAccessReview for a kind the server does not serve, see canI) must answer yes to every permission upstream's policy-only manifest grants (test/fixtures/upstream-rbac.yaml)
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

/**
 * The API server's answer to `user` doing `p`: `kubectl auth can-i --quiet` (its exit code is the
 * answer). For a kind the server does not serve (the v1 kinds of the migration check, KubeVirt's),
 * can-i cannot resolve the name and asks about a resource named `<plural>.<group>` in no group, so the
 * same question goes to the authorizer as a SubjectAccessReview with the group and resource, as a
 * request of Felix or Typha would reach it.
 */
function canI(c: EngineCase, p: Permission, user: string): { answer: "yes" | "no"; how: string } {
  const asked = c.cluster.kubectl([...canIArgs(p, user), "--quiet"]);
  if (!/doesn't have a resource type/.test(asked.output)) {
    assert.ok(!/error/i.test(asked.output), asked.output);
    return { answer: asked.ok ? "yes" : "no", how: `kubectl auth can-i ${asked.output}`.trim() };
  }
  const [resource, subresource] = p.resource.split("/");
  const review = {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    spec: {
      user,
      groups: [
        "system:serviceaccounts",
        `system:serviceaccounts:${user.split(":")[2]}`,
        "system:authenticated",
      ],
      resourceAttributes: {
        verb: p.verb,
        group: p.apiGroup,
        resource,
        ...(subresource ? { subresource } : {}),
      },
    },
  };
  const reviewed = c.cluster.kubectl(["create", "-o", "json", "-f", "-"], JSON.stringify(review));
  assert.ok(reviewed.ok, reviewed.output);
  const status = (JSON.parse(reviewed.output) as { status: { allowed: boolean; reason?: string } }).status;
  return { answer: status.allowed ? "yes" : "no", how: `SubjectAccessReview: ${status.reason ?? "no rule"}` };
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
              const said = canI(c, permission, user);
              asked += 1;
              if (said.answer !== expected)
                wrong.push(`${workload}: ${describePermission(permission)}: ${said.answer} (${said.how})`);
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
