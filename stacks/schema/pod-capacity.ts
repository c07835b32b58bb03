/**
 * Cross-key rule: each instance type of a node group must hold, in pods, the stack's own pods that may
 * run on one of its nodes (node-pods.ts). The kubelet admits no pod past its max pods, so a node too
 * small leaves calico-node, Typha, CoreDNS or the probe Pending and `pulumi up` fails waiting for them.
 */
import type { z } from "zod";
import { nodeAddressDemand } from "../../components/network/pod-addresses";
import { familySizes } from "./instance-types";
import { type NodePodSettings, type NodeWorkload, type Taint, podsOnOneNode } from "./node-pods";
import { isRecord } from "./records";
import { prefixDelegationOf } from "./pod-addresses";

/**
 * The most pods a node of `instanceType` runs: the kubelet's max pods on a managed node, the VPC CNI's
 * count capped by EKS (components/network/pod-addresses.ts); undefined for a type the table lacks.
 */
export function maxPods(instanceType: string, prefixDelegation = false): number | undefined {
  return nodeAddressDemand(instanceType, prefixDelegation)?.maxPods;
}

function taintsOf(group: unknown): Taint[] {
  const taints = isRecord(group) && Array.isArray(group.taints) ? group.taints : [];
  return taints.flatMap((t: unknown) =>
    isRecord(t) && typeof t.key === "string" && typeof t.effect === "string"
      ? [{ key: t.key, value: typeof t.value === "string" ? t.value : "", effect: t.effect }]
      : [],
  );
}

/** What decides the pods on a node, read from a config whose own keys may still be invalid. */
export function nodePodSettings(
  config: Record<string, unknown>,
  groups: readonly unknown[],
): NodePodSettings | undefined {
  const calico = isRecord(config.calico) ? config.calico : {};
  const installer = calico.installer ?? "manifest";
  if (installer !== "manifest" && installer !== "operator") return undefined;
  const probe = isRecord(calico.probe) ? calico.probe.enabled : undefined;
  return {
    installer,
    apiServer: calico.apiServer !== false,
    observability: calico.observability === true,
    probe: probe !== false,
    clusterAddonTaints: groups.filter((g) => isRecord(g) && g.clusterAddons === true).flatMap(taintsOf),
  };
}

/** "aws-node, kube-proxy, coredns x2, ...": the pods one node may get. */
function describe(workloads: readonly NodeWorkload[]): string {
  return workloads.map((w) => (w.perNode === 1 ? w.name : `${w.name} x${w.perNode}`)).join(", ");
}

/** The smallest size of `instanceType`'s family that holds `pods`, for the hint. */
function largerSize(instanceType: string, pods: number, prefixDelegation: boolean): string | undefined {
  const family = instanceType.slice(0, instanceType.indexOf("."));
  const size = familySizes(family).find((s) => (maxPods(`${family}.${s}`, prefixDelegation) ?? 0) >= pods);
  return size === undefined ? undefined : `${family}.${size}`;
}

export function checkPodCapacity(config: Record<string, unknown>, ctx: z.core.$RefinementCtx): void {
  const groups = config.nodeGroups;
  if (!Array.isArray(groups)) return;
  const settings = nodePodSettings(config, groups);
  if (settings === undefined) return;
  const prefixDelegation = prefixDelegationOf(config);
  groups.forEach((group: unknown, groupIndex) => {
    const types = isRecord(group) ? group.instanceTypes : undefined;
    if (!Array.isArray(types)) return;
    const workloads = podsOnOneNode(settings, taintsOf(group));
    const needed = workloads.reduce((sum, w) => sum + w.perNode, 0);
    types.forEach((instanceType: unknown, typeIndex) => {
      // A type missing from the table is refused on its own rule.
      const limits =
        typeof instanceType === "string" ? nodeAddressDemand(instanceType, prefixDelegation) : undefined;
      if (limits === undefined || limits.maxPods >= needed || typeof instanceType !== "string") return;
      const larger = largerSize(instanceType, needed, prefixDelegation);
      const perInterface =
        limits.prefixes === 0
          ? `(${limits.addressesPerInterface} - 1) addresses`
          : `((${limits.addressesPerInterface} - 1) x 16) prefix addresses`;
      ctx.addIssue({
        code: "custom",
        path: ["nodeGroups", groupIndex, "instanceTypes", typeIndex],
        input: instanceType,
        message:
          `holds at most ${limits.maxPods} pods (${limits.maxInterfaces} network interfaces x ${perInterface} + 2, ` +
          `the VPC CNI's max pods${limits.maxPods < limits.eniMaxPods ? ", capped by EKS" : ""}), but up to ${needed} of the stack's own pods may run on one node of this group: ` +
          `${describe(workloads)}`,
        params: {
          hint: `${larger === undefined ? "use a larger instance type" : `use ${larger} (${maxPods(larger, prefixDelegation)} pods) or larger`}; a group tainted NoSchedule gets only the pods that tolerate its taints`,
        },
      });
    });
  });
}
