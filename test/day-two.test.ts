/**
 * Day-two changes as properties: from a deployed generated stack (test/generated-configs.ts,
 * test/deployed-stack.ts), each change plans exactly its own effect and nothing else, with the diff's own
 * summary line counting it:
 * - an autoscaler moved a node group's desired size: nothing (the size is ignored);
 * - an AZ added: its two subnets, its private route table, both associations, and its NAT gateway and
 *   Elastic IP with `natGateways: perAz`; the cluster and its node groups keep their AZs;
 * - a node group added or removed: the group and its launch template, Typha's rollout pace where the
 *   nodes the cluster keeps cross 2, and the enforcement probe runs again (it runs again whenever the
 *   nodes change);
 * - a Calico patch release: Calico's workloads (calico-node and Typha; the operator and the
 *   Installation, and the image of the Felix cleanup), their images and version labels, and the probe
 *   runs again;
 * - a new `calico.maxUnavailable`: calico-node's DaemonSet (the Installation, with the operator) alone.
 * The expected resources follow from the change and the resource names users' states hold, never from
 * the program's own plan.
 */
import * as assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { CALICO_RELEASES } from "../components/calico/releases";
import { CONFIG_NAMESPACE, validateConfig } from "../stacks";
import { decodeConfigValue } from "../stacks/config-values";
import { loadStackConfig } from "../offline/config";
import { OPERATOR_CALICO_RELEASES } from "../components/calico/operator/releases";
import { operatorRules } from "../components/calico/operator/rbac";
import { FELIX_CLEANUP_TYPE } from "../components/calico/felix-cleanup";
import type { AwsSimulation } from "../offline/engine";
import { renderDiff, summarize } from "../offline/diff-render";
import { availabilityZones } from "../offline/world/aws-calls";
import { EKS_DISALLOWED_ZONE_IDS } from "../stacks/zones";
import { type Deployed, deployOrDrop, planAgainst } from "./deployed-stack";
import { type GeneratedStack, generatedStacks } from "./generated-configs";
import { PROPERTY_SECONDS, checkProperty, propertyRun } from "./property-runs";

type Config = Record<string, unknown>;
type Op = "create" | "update" | "replace" | "delete" | "unknown";

/** What a change must plan: resources (`<type> <name>`) by the step each takes. */
interface Expected {
  readonly create?: readonly string[];
  readonly update?: readonly string[];
  readonly delete?: readonly string[];
  /** The enforcement probe runs again: its anchor and client Jobs are replaced (or may be). */
  readonly probeRuns?: boolean;
}

/** A change to a deployed stack: the next config and what AWS did meanwhile, and what it must plan. */
interface Change {
  readonly name: string;
  readonly next: GeneratedStack;
  readonly simulate?: AwsSimulation;
  /** From the deployed stack and the next plan's outputs (an added AZ's name is AWS's choice). */
  readonly expected: (outputs: Config) => Expected;
}

/** The probe's objects that each run makes anew (components/calico/probe; their names are in users' states). */
const PROBE_RUN = [
  "kubernetes:core/v1:Pod calico-probe-anchor",
  "kubernetes:batch/v1:Job calico-probe-allowed-client",
  "kubernetes:batch/v1:Job calico-probe-denied-client",
  "kubernetes:batch/v1:Job calico-probe-recheck-client",
  "kubernetes:batch/v1:Job calico-probe-other-node-probe-allowed-client",
  "kubernetes:batch/v1:Job calico-probe-other-node-probe-denied-client",
  "kubernetes:batch/v1:Job calico-probe-other-node-probe-recheck-client",
];

const calicoOf = (generated: GeneratedStack) => generated.config["eks-calico:calico"] as Config;
const probeOn = (generated: GeneratedStack) =>
  (calicoOf(generated).probe as Config | undefined)?.enabled !== false;
const isFull = (generated: GeneratedStack) => generated.config["eks-calico:network"] !== undefined;
const withConfig = (generated: GeneratedStack, config: Config): GeneratedStack => ({
  stack: generated.stack,
  config: { ...generated.config, ...config },
});

/** The node group resources a group of the stack has (its aws.eks.NodeGroup and launch template). */
const groupResources = (name: string) => [
  `aws:ec2/launchTemplate:LaunchTemplate cluster-${name}`,
  `aws:eks/nodeGroup:NodeGroup cluster-${name}`,
];

/** An autoscaler moved one group's desired size within its range. */
function autoscaled(generated: GeneratedStack, deployed: Deployed, pick: number): Change | undefined {
  const groups = generated.config["eks-calico:nodeGroups"] as Config[];
  const group = groups[pick % groups.length];
  const [min, max, desired] = [group.minSize, group.maxSize, group.desiredSize] as number[];
  if (max === min) return undefined;
  const size = desired === max ? min : desired + 1;
  const scaling = deployed.outputs.nodeGroupScaling as Record<string, { nodeGroupName: string }>;
  return {
    name: `an autoscaler moved ${String(group.name)} from ${desired} to ${size} nodes`,
    next: generated,
    simulate: {
      nodeGroups: { autoscaledDesiredSizes: { [scaling[String(group.name)].nodeGroupName]: size } },
    },
    expected: () => ({}),
  };
}

/** One more AZ: appended to `zones` (spelled as they are), or one more in `availabilityZones`. */
function azAdded(generated: GeneratedStack, deployed: Deployed): Change | undefined {
  const region = String(generated.config["aws:region"]);
  const network = generated.config["eks-calico:network"] as Config;
  const answer = availabilityZones(region) as { names: string[]; zoneIds: string[] };
  const refused = EKS_DISALLOWED_ZONE_IDS[region] ?? [];
  const deployedZones = (deployed.outputs.network as { zones: { zone: string }[] }).zones.map((z) => z.zone);
  const excluded = (network.excludeZones as string[] | undefined) ?? [];
  const free = answer.names
    .map((name, i) => ({ name, id: answer.zoneIds[i] }))
    .filter((zone) => !refused.includes(zone.id) && !deployedZones.includes(zone.name))
    .filter((zone) => !excluded.includes(zone.name) && !excluded.includes(zone.id));
  if (free.length === 0) return undefined;
  const listed = network.zones as string[] | undefined;
  const byId = listed !== undefined && answer.zoneIds.includes(listed[0]);
  const zones = listed === undefined ? {} : { zones: [...listed, byId ? free[0].id : free[0].name] };
  const next = { ...network, ...zones, availabilityZones: deployedZones.length + 1 };
  return {
    name: `an AZ added to ${JSON.stringify(listed ?? deployedZones.length)}`,
    next: withConfig(generated, { "eks-calico:network": next }),
    expected: (outputs) => {
      const after = (outputs.network as { zones: { zone: string }[] }).zones.map((z) => z.zone);
      const added = after.filter((zone) => !deployedZones.includes(zone));
      assert.equal(added.length, 1, `one AZ added: ${after.join(", ")}`);
      const [zone] = added;
      const nat = network.natGateways === "perAz";
      return {
        create: [
          `aws:ec2/subnet:Subnet network-public-${zone}`,
          `aws:ec2/subnet:Subnet network-private-${zone}`,
          `aws:ec2/routeTable:RouteTable network-private-${zone}`,
          `aws:ec2/route:Route network-private-${zone}-default`,
          `aws:ec2/routeTableAssociation:RouteTableAssociation network-public-${zone}`,
          `aws:ec2/routeTableAssociation:RouteTableAssociation network-private-${zone}`,
          ...(nat
            ? [`aws:ec2/eip:Eip network-nat-${zone}`, `aws:ec2/natGateway:NatGateway network-nat-${zone}`]
            : []),
          // The S3 gateway endpoint (network.endpoints.s3, on unless turned off) on the AZ's route table.
          ...((network.endpoints as { s3?: boolean } | undefined)?.s3 === false
            ? []
            : [
                `aws:ec2/vpcEndpointRouteTableAssociation:VpcEndpointRouteTableAssociation network-s3-${zone}`,
              ]),
        ],
      };
    },
  };
}

/**
 * CoreDNS's add-on, whose configuration tolerates the taints of the groups marked `clusterAddons`: a group
 * with such a taint (generated taints are the group's own) changes it when it comes or goes.
 */
const coreDnsFor = (group: Config) =>
  group.clusterAddons === true && Array.isArray(group.taints) && group.taints.length > 0
    ? ["aws:eks/addon:Addon cluster-coredns"]
    : [];

/**
 * Typha's Deployment in the manifest install, when the nodes the cluster keeps (the groups' minSize
 * summed) cross 2: from 2 kept nodes on, a rollout starts each new replica before an old one stops
 * (docs/operating-calico.md, "A Typha upgrade without a moment without Typha"), below it one stops
 * first. The operator rolls its own Typha.
 */
function typhaPaceFor(generated: GeneratedStack, before: Config[], after: Config[]): string[] {
  const calico = calicoOf(generated);
  if (calico.installer === "operator") return [];
  const kept = (groups: Config[]) => groups.reduce((sum, g) => sum + Number(g.minSize ?? 0), 0) >= 2;
  if (kept(before) === kept(after)) return [];
  const typha = calico.adopt === true ? "calico-typha-takeover" : "calico-typha";
  return [`kubernetes:apps/v1:Deployment calico-deployment-${typha}`];
}

/** A node group added (tainted or not, CoreDNS's or not, at zero nodes or more), or the last one removed. */
function groupAddedOrRemoved(generated: GeneratedStack, pick: number): Change {
  const groups = generated.config["eks-calico:nodeGroups"] as Config[];
  if (pick % 2 === 0 && groups.length > 1) {
    const last = groups[groups.length - 1];
    return {
      name: `node group ${String(last.name)} removed`,
      next: withConfig(generated, { "eks-calico:nodeGroups": groups.slice(0, -1) }),
      expected: () => ({
        delete: groupResources(String(last.name)),
        update: [...coreDnsFor(last), ...typhaPaceFor(generated, groups, groups.slice(0, -1))],
        probeRuns: probeOn(generated),
      }),
    };
  }
  const tainted = pick % 4 === 1 || pick % 4 === 3;
  const added: Config = {
    name: "added",
    instanceTypes: ["m6i.large"],
    minSize: 0,
    desiredSize: pick % 3,
    maxSize: 3,
    ...(tainted ? { taints: [{ key: "dedicated", value: "added", effect: "NoSchedule" }] } : {}),
    ...(tainted && pick % 4 === 3 ? { clusterAddons: true } : {}),
  };
  return {
    name: `node group added (${JSON.stringify(added)})`,
    next: withConfig(generated, { "eks-calico:nodeGroups": [...groups, added] }),
    expected: () => ({
      create: groupResources("added"),
      update: [...coreDnsFor(added), ...typhaPaceFor(generated, groups, [...groups, added])],
      probeRuns: probeOn(generated),
    }),
  };
}

/** Another release of the deployed Calico line. */
function patchRelease(generated: GeneratedStack, pick: number): Change | undefined {
  const calico = calicoOf(generated);
  const version = String(calico.version);
  const line = version.split(".").slice(0, 2).join(".").slice(1) as keyof typeof CALICO_RELEASES;
  const operator = calico.installer === "operator";
  const releases = CALICO_RELEASES[line].filter(
    (release) => release !== version && (!operator || OPERATOR_CALICO_RELEASES.includes(release)),
  );
  if (releases.length === 0) return undefined;
  const release = releases[pick % releases.length];
  const typha = calico.adopt === true ? "calico-typha-takeover" : "calico-typha";
  // The operator's ClusterRole is upstream's for each operator release (read at each tag, rbac.ts): it
  // changes where upstream changed it.
  const operatorRbac = isDeepStrictEqual(operatorRules(version), operatorRules(release))
    ? []
    : ["kubernetes:rbac.authorization.k8s.io/v1:ClusterRole calico-role-tigera-operator"];
  return {
    name: `Calico ${version} → ${release}`,
    next: withConfig(generated, { "eks-calico:calico": { ...calico, version: release } }),
    expected: () => ({
      update: operator
        ? [
            "kubernetes:apps/v1:Deployment calico-deployment-tigera-operator",
            "kubernetes:operator.tigera.io/v1:Installation calico-installation-default",
            // The cleanup runs calico-node's image of the release once the operator has removed it.
            `${FELIX_CLEANUP_TYPE} calico-felix-cleanup`,
            ...operatorRbac,
          ]
        : [
            "kubernetes:apps/v1:DaemonSet calico-daemonset-calico-node",
            `kubernetes:apps/v1:Deployment calico-deployment-${typha}`,
          ],
      probeRuns: probeOn(generated),
    }),
  };
}

/**
 * Whether calico.readinessTimeoutMinutes stays valid in `generated`, as the stack's own schema judges it
 * (stacks/schema checkRolloutTimeout: a configured timeout no shorter than the rollout at every group's
 * maxSize, or a cluster's maxNodes). A change that breaks it is refused by the stack, not planned.
 */
function fitsTimeout(generated: GeneratedStack): boolean {
  const { values } = loadStackConfig(generated.stack, generated.config);
  const raw = Object.fromEntries(
    Object.entries(values)
      .filter(([key]) => key.startsWith(`${CONFIG_NAMESPACE}:`))
      .map(([key, value]) => [key.slice(CONFIG_NAMESPACE.length + 1), decodeConfigValue(value)]),
  );
  const result = validateConfig(raw);
  return result.ok || !result.problems.some((p) => p.path === "calico.readinessTimeoutMinutes");
}

/** A new calico.maxUnavailable, among those the configured readiness timeout allows. */
function maxUnavailable(generated: GeneratedStack, pick: number): Change | undefined {
  const calico = calicoOf(generated);
  const values = ([1, 2, 5, "20%", "34%"] as const).filter(
    (value) =>
      value !== calico.maxUnavailable &&
      fitsTimeout(withConfig(generated, { "eks-calico:calico": { ...calico, maxUnavailable: value } })),
  );
  if (values.length === 0) return undefined;
  const value = values[pick % values.length];
  return {
    name: `calico.maxUnavailable ${JSON.stringify(calico.maxUnavailable)} → ${JSON.stringify(value)}`,
    next: withConfig(generated, { "eks-calico:calico": { ...calico, maxUnavailable: value } }),
    expected: () => ({
      update: [
        calico.installer === "operator"
          ? "kubernetes:operator.tigera.io/v1:Installation calico-installation-default"
          : "kubernetes:apps/v1:DaemonSet calico-daemonset-calico-node",
      ],
    }),
  };
}

const CHANGES = ["autoscaled", "azAdded", "group", "patch", "maxUnavailable"] as const;

function changeOf(
  kind: (typeof CHANGES)[number],
  generated: GeneratedStack,
  deployed: Deployed,
  pick: number,
) {
  const full = isFull(generated);
  if (kind === "autoscaled") return full ? autoscaled(generated, deployed, pick) : undefined;
  if (kind === "azAdded") return full ? azAdded(generated, deployed) : undefined;
  if (kind === "group") {
    const change = full ? groupAddedOrRemoved(generated, pick) : undefined;
    return change !== undefined && fitsTimeout(change.next) ? change : undefined;
  }
  if (kind === "patch") return patchRelease(generated, pick);
  return maxUnavailable(generated, pick);
}

/** Plans `change` on the deployed stack and checks it does exactly what is expected. */
async function checkChange(deployed: Deployed, change: Change): Promise<void> {
  const { evaluation, diff } = await planAgainst(deployed, change.next, {
    ...(change.simulate === undefined ? {} : { simulate: change.simulate }),
  });
  const expected = change.expected(evaluation.outputs);
  const steps = new Map<string, Op>();
  for (const resource of [...diff.added, ...diff.changed, ...diff.removed]) {
    if (resource.op !== "same") steps.set(resource.heading, resource.op);
  }
  const probe = expected.probeRuns === true ? PROBE_RUN : [];
  const wanted: Record<string, Op[]> = {};
  for (const op of ["create", "update", "delete"] as const) {
    for (const heading of expected[op] ?? []) wanted[heading] = [op];
  }
  for (const heading of probe) wanted[heading] = ["replace", "unknown"];
  const got = Object.fromEntries([...steps].sort());
  assert.deepEqual(
    Object.keys(got).sort(),
    Object.keys(wanted).sort(),
    `${change.name}: the resources it changes`,
  );
  for (const [heading, op] of steps) {
    assert.ok(wanted[heading].includes(op), `${change.name}: ${heading} is planned "${op}"`);
  }
  // The diff's own summary line counts exactly these.
  const counts = summarize(diff);
  const replaced = probe.filter((heading) => steps.get(heading) === "replace").length;
  const line = renderDiff(diff, "deployed").split("\n")[0];
  assert.match(
    line,
    new RegExp(
      `: \\+ ${expected.create?.length ?? 0} to create, ~ ${expected.update?.length ?? 0} to update, ` +
        `\\+- ${replaced} to replace, - ${expected.delete?.length ?? 0} to delete, \\? ${probe.length - replaced} may replace, `,
    ),
    `${change.name}: ${JSON.stringify(counts)}`,
  );
}

describe("day-two changes to a deployed stack plan exactly their own effect", () => {
  it("a new maxUnavailable with the operator updates the Installation in place (it may replace nothing)", async () => {
    // The operator's kinds had no replacement rule, so every change to the Installation showed "may replace".
    const generated = {
      stack: "dev",
      config: { "eks-calico:calico": { installer: "operator", maxUnavailable: 1 } },
    };
    const deployed = await deployOrDrop(generated, new Map());
    const change = maxUnavailable(generated, 0);
    assert.ok(change);
    await checkChange(deployed, change);
  });

  const run = propertyRun(PROPERTY_SECONDS.dayTwo);
  it(`for generated stacks and changes (seed ${run.seed})`, async function () {
    this.timeout(run.timeoutMs);
    const refusals = new Map<string, number>();
    const tried = new Map<string, number>();
    const { tried: cases } = await checkProperty(
      run,
      fc.asyncProperty(
        generatedStacks,
        fc.constantFrom(...CHANGES),
        fc.nat(),
        async (generated, kind, pick) => {
          const deployed = await deployOrDrop(generated, refusals);
          const change = changeOf(kind, generated, deployed, pick);
          fc.pre(change !== undefined);
          tried.set(kind, (tried.get(kind) ?? 0) + 1);
          await checkChange(deployed, change);
        },
      ),
    );
    const each = CHANGES.map((kind) => `${kind} ${tried.get(kind) ?? 0}`).join(", ");
    console.log(`      day two: ${cases} changes planned (${each}), seed ${run.seed}`);
  });
});
