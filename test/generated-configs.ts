/**
 * Stack configs generated for property tests (fast-check): every kind of stack a user can write, as
 * `npm start --config` overrides on top of a stack file. Full stacks vary the region, the AZs (a count,
 * `zones` in any order by name or by zone ID, `excludeZones`), the NAT gateways, several node groups
 * (labels, taints, Spot, Graviton, Bottlerocket, sizes) and the Calico settings of both installers;
 * existing-cluster and kubeconfig stacks vary their Calico settings and node counts. The generators aim at
 * valid configs; a test drops the few the program refuses (counted, so a generator that drifts into
 * refusals is seen).
 */
import fc from "fast-check";
import { CALICO_RELEASES } from "../components/calico/releases";
import { OPERATOR_CALICO_RELEASES } from "../components/calico/operator/releases";
import type { ConfigOverrides } from "../offline/engine";
import { availabilityZones } from "../offline/world/aws-calls";
import { EKS_DISALLOWED_ZONE_IDS } from "../stacks/zones";

/** A generated stack: the stack file it starts from and the config set on top. */
export interface GeneratedStack {
  readonly stack: string;
  readonly config: ConfigOverrides;
}

/** Regions with different AZ counts and zone-ID mappings, one with a zone ID EKS refuses (us-east-1). */
export const GENERATED_REGIONS = ["us-west-2", "us-east-1", "eu-central-1", "ap-northeast-1"] as const;

/** Instance types per architecture, each with room for the stack's own pods and addresses. */
const INSTANCE_TYPES = {
  x86_64: ["t3.large", "m6i.large", "m6a.xlarge", "c6i.xlarge", "r6i.large"],
  arm64: ["m7g.large", "c7g.xlarge", "t4g.large", "r7g.large"],
} as const;
const AMI_TYPES = {
  x86_64: ["AL2023_x86_64_STANDARD", "BOTTLEROCKET_x86_64"],
  arm64: ["AL2023_ARM_64_STANDARD", "BOTTLEROCKET_ARM_64"],
} as const;

const GROUP_NAMES = ["general", "system", "batch", "spot-arm"] as const;

/** A region's AZs as the offline world lists them, without the zone IDs EKS refuses for a cluster. */
function usableZones(region: string): { name: string; id: string }[] {
  const answer = availabilityZones(region) as { names: string[]; zoneIds: string[] };
  const refused = EKS_DISALLOWED_ZONE_IDS[region] ?? [];
  return answer.names
    .map((name, i) => ({ name, id: answer.zoneIds[i] }))
    .filter((zone) => !refused.includes(zone.id));
}

/** `network` for a region: a count, `zones` in any order (names or zone IDs), or `excludeZones`. */
function networkFor(region: string): fc.Arbitrary<Record<string, unknown>> {
  const zones = usableZones(region);
  const common = {
    cidr: fc.constantFrom("10.10.0.0/16", "172.20.0.0/16", "10.64.0.0/18"),
    natGateways: fc.constantFrom("single", "perAz"),
  };
  const spelled = (picked: { name: string; id: string }[], byId: boolean) =>
    picked.map((zone) => (byId ? zone.id : zone.name));
  return fc.oneof(
    fc.record({ ...common, availabilityZones: fc.integer({ min: 2, max: Math.min(3, zones.length) }) }),
    fc
      .record({
        ...common,
        picked: fc.shuffledSubarray(zones, { minLength: 2, maxLength: Math.min(3, zones.length) }),
        byId: fc.boolean(),
      })
      .map(({ picked, byId, ...rest }) => ({
        ...rest,
        availabilityZones: picked.length,
        zones: spelled(picked, byId),
      })),
    fc
      .record({
        ...common,
        left: fc.shuffledSubarray(zones, { minLength: 1, maxLength: Math.max(1, zones.length - 2) }),
        byId: fc.boolean(),
      })
      .filter(({ left }) => zones.length - left.length >= 2)
      .map(({ left, byId, ...rest }) => ({
        ...rest,
        availabilityZones: 2,
        excludeZones: spelled(left, byId),
      })),
  );
}

/** One node group; the first of a stack is untainted and starts with a node (the probe and CoreDNS run there). */
function nodeGroup(name: string, first: boolean): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      arch: fc.constantFrom<keyof typeof INSTANCE_TYPES>("x86_64", "arm64"),
      pick: fc.nat(),
      ami: fc.nat(),
      capacityType: fc.constantFrom("ON_DEMAND", "SPOT"),
      minSize: fc.integer({ min: first ? 1 : 0, max: 2 }),
      extra: fc.integer({ min: 0, max: 2 }),
      headroom: fc.integer({ min: 0, max: 4 }),
      labels: fc.option(fc.constantFrom({ team: "platform" }, { workload: name, tier: "b" }), {
        nil: undefined,
      }),
      tainted: first ? fc.constant(false) : fc.boolean(),
      diskSizeGiB: fc.constantFrom(50, 80),
    })
    .map(({ arch, pick, ami, minSize, extra, headroom, labels, tainted, ...rest }) => {
      const types = INSTANCE_TYPES[arch];
      const instanceTypes = [
        types[pick % types.length],
        ...(pick % 3 === 0 ? [] : [types[(pick + 1) % types.length]]),
      ];
      const desiredSize = minSize + extra;
      return {
        name,
        instanceTypes,
        amiType: AMI_TYPES[arch][ami % 2],
        minSize,
        desiredSize,
        maxSize: Math.max(1, desiredSize + headroom),
        labels: labels ?? {},
        taints: tainted ? [{ key: "dedicated", value: name, effect: "NoSchedule" }] : [],
        ...(tainted ? { clusterAddons: true } : {}),
        ...rest,
      };
    });
}

const nodeGroups: fc.Arbitrary<Record<string, unknown>[]> = fc
  .integer({ min: 1, max: 3 })
  .chain((count) => fc.tuple(...GROUP_NAMES.slice(0, count).map((name, i) => nodeGroup(name, i === 0))));

/** `calico` settings of the manifest installer (the one the local control plane can run), as a user sets them. */
export const manifestCalicoSettings: fc.Arbitrary<Record<string, unknown>> = fc.record({
  installer: fc.constant("manifest"),
  version: fc.constantFrom(...Object.values(CALICO_RELEASES).flat()),
  namespace: fc.constantFrom("kube-system", "calico-policy"),
  maxUnavailable: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constantFrom("10%", "25%", "50%")),
  registry: fc.constantFrom("quay.io/calico", "123456789012.dkr.ecr.us-west-2.amazonaws.com/calico"),
  autoscalerRegistry: fc.constantFrom("registry.k8s.io/cpa", "registry.example.com/cpa"),
  startupTaintRegistry: fc.constantFrom(
    "registry.k8s.io",
    "123456789012.dkr.ecr.us-west-2.amazonaws.com/k8s",
  ),
  readinessTimeoutMinutes: fc.option(fc.constantFrom(10, 45), { nil: undefined }),
  adopt: fc.boolean(),
  probe: fc.record({ enabled: fc.boolean(), timeoutMinutes: fc.constantFrom(5, 8) }),
});

/** `calico` settings of either installer, as a user sets them. */
export const calicoSettings: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  manifestCalicoSettings,
  fc.record({
    installer: fc.constant("operator"),
    version: fc.constantFrom(...OPERATOR_CALICO_RELEASES),
    maxUnavailable: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constantFrom("10%", "25%")),
    apiServer: fc.boolean(),
    observability: fc.boolean(),
    startupTaintRegistry: fc.constantFrom(
      "registry.k8s.io",
      "123456789012.dkr.ecr.us-west-2.amazonaws.com/k8s",
    ),
    probe: fc.record({ enabled: fc.boolean() }),
  }),
);

/** A full stack: VPC, EKS cluster and node groups, from dev's file. */
const fullStack: fc.Arbitrary<GeneratedStack> = fc
  .constantFrom(...GENERATED_REGIONS)
  .chain((region) =>
    fc.record({
      region: fc.constant(region),
      network: networkFor(region),
      nodeGroups,
      calico: calicoSettings,
    }),
  )
  .map(({ region, network, nodeGroups: groups, calico }) => ({
    stack: "dev",
    config: {
      "aws:region": region,
      "eks-calico:network": network,
      "eks-calico:nodeGroups": groups,
      "eks-calico:calico": calico,
    },
  }));

/** A Calico-only stack on a cluster made elsewhere: `mode` is `existing` (EKS) or `kubeconfig`. */
function calicoOnlyStack(stack: string, mode: "existing" | "kubeconfig"): fc.Arbitrary<GeneratedStack> {
  return fc
    .record({ maxNodes: fc.integer({ min: 1, max: 60 }), calico: calicoSettings })
    .map(({ maxNodes, calico }) => ({
      stack,
      config: { [`eks-calico:cluster.${mode}.maxNodes`]: maxNodes, "eks-calico:calico": calico },
    }));
}

/** Any stack a user can write: mostly full stacks, which have the most to keep across updates. */
export const generatedStacks: fc.Arbitrary<GeneratedStack> = fc.oneof(
  { arbitrary: fullStack, weight: 4 },
  { arbitrary: calicoOnlyStack("existing.example", "existing"), weight: 1 },
  { arbitrary: calicoOnlyStack("kubeconfig.example", "kubeconfig"), weight: 1 },
);

/** A full stack only (for changes to its network and node groups). */
export const generatedFullStacks = fullStack;
