/** The restricted Pod Security policy: the probe's pods meet it; a pod that would be refused is caught. */
import * as assert from "node:assert/strict";
import { podSecurityRestricted, restrictedViolations } from "../policy/policies";
import type { ResourceRecord } from "../offline/engine";
import { runPolicy } from "./policy-harness";
import { STACKS, evaluated } from "./helpers";

/** `record` with its pod template's first container security context replaced. */
function withContainerContext(record: ResourceRecord, context: Record<string, unknown>): ResourceRecord {
  const inputs = structuredClone(record.inputs) as {
    spec: { template: { spec: { containers: { securityContext?: unknown }[] } } };
  };
  inputs.spec.template.spec.containers[0].securityContext = context;
  return { ...record, inputs };
}

describe("policy: k8s-pod-security-restricted", () => {
  for (const stack of STACKS) {
    it(`passes the probe's pods in ${stack}, and leaves kube-system's privileged calico-node alone`, async () => {
      const run = await runPolicy(podSecurityRestricted, (await evaluated(stack)).resources);
      assert.deepEqual(run, { violations: [], notApplicable: [] });
    });
  }

  it("reports a probe pod that escalates privileges and keeps its capabilities, naming what breaks", async () => {
    const dev = await evaluated("dev");
    const server = dev.resources.find((r) => r.name === "calico-probe-server");
    assert.ok(server);
    const broken = withContainerContext(server, { allowPrivilegeEscalation: true });
    const run = await runPolicy(
      podSecurityRestricted,
      dev.resources.map((r) => (r === server ? broken : r)),
    );
    assert.equal(run.violations.length, 1);
    assert.equal(run.violations[0].urn, server.urn);
    assert.match(
      run.violations[0].message,
      /server: allowPrivilegeEscalation is not false; server: capabilities do not drop ALL/,
    );
  });

  it("is not applicable without a restricted namespace", async () => {
    const dev = await evaluated("dev");
    const run = await runPolicy(
      podSecurityRestricted,
      dev.resources.filter((r) => r.name !== "calico-probe-namespace"),
    );
    assert.deepEqual(run.violations, []);
    assert.equal(run.notApplicable.length, 1);
  });

  for (const [title, pod, expected] of [
    ["host network", { hostNetwork: true, containers: [] }, ["hostNetwork is true"]],
    [
      "root by default, no seccomp",
      {
        containers: [
          {
            name: "c",
            securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
          },
        ],
      },
      ["c: runAsNonRoot is not true", "c: seccompProfile is not RuntimeDefault or Localhost"],
    ],
    [
      "pod-level settings inherited, one extra capability",
      {
        securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
        containers: [
          {
            name: "c",
            securityContext: {
              allowPrivilegeEscalation: false,
              capabilities: { drop: ["ALL"], add: ["NET_ADMIN"] },
            },
          },
        ],
      },
      ['c: adds capabilities ["NET_ADMIN"]'],
    ],
  ] as const) {
    it(`finds ${title}`, () => {
      assert.deepEqual(restrictedViolations(pod as Record<string, unknown>), expected);
    });
  }
});
