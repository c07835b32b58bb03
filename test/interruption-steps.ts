/**
 * The steps of an update that change the cluster, one row each, for the interruption property
 * (test/cluster/interrupted-up.test.ts): where each step begins in the engine's events, and the configs
 * that make an update run it, as generators. test/interruption-steps.test.ts holds the table to the
 * program: every dynamic resource type any plan registers is a row's or excluded with its reason, each
 * row's configs plan its step, and every installer switch the program does not refuse is a row's.
 */
import fc from "fast-check";
import { FELIX_CLEANUP_TYPE } from "../components/calico/felix-cleanup";
import { FELIX_RESTORE_TYPE } from "../components/calico/felix-cleanup/restore";
import { INSTALL_CHECK_TYPE } from "../components/calico/install-check";
import { LINE_CHECK_TYPE } from "../components/calico/line-check";
import { CALICO_RELEASES } from "../components/calico/releases";
import { OPERATOR_CALICO_RELEASES } from "../components/calico/operator/releases";
import { REMOVAL_MARKER_TYPE } from "../components/calico/removal-marker";
import { TAKEOVER_TYPE } from "../components/calico/takeover";
import { TYPHA_RETIREMENT_TYPE } from "../components/calico/takeover/typha-retirement";
import { AWS_NODE_CHECK_TYPE } from "../components/existing-cluster/aws-node-check";
import { HAND_OVER_TYPE } from "../components/existing-cluster/hand-over-step";
import { calicoMinorOf } from "../components/calico/defaults";

/** The probe's component: every object of a probe run is its child. */
export const PROBE_TYPE = "eks-calico:calico:PolicyProbe";

/** `eks-calico:calico` settings as a user writes them. */
export type CalicoSettings = Readonly<Record<string, unknown>>;

/** The old manifests a takeover runs over (test/fixtures/adopt/, applied as test/cluster/old-manifest.ts does). */
export const ADOPT_FIXTURES = [
  "amazon-vpc-cni-v1.5.yaml",
  "amazon-vpc-cni-v1.6.yaml",
  "calico-policy-only.yaml",
];

/** One case of a step: what the cluster holds, the update that runs the step, and what the next one does. */
export interface Scenario {
  /** An old manifest applied with kubectl before anything else (an {@link ADOPT_FIXTURES} file). */
  readonly manifest?: string;
  /** Calico settings the stack is deployed with first, by an `up` that runs to its end. */
  readonly deployed?: CalicoSettings;
  /** The operation that runs the step and is interrupted, with its settings (`destroy`: the deployed ones). */
  readonly interrupted: { readonly operation: "up" | "destroy"; readonly calico: CalicoSettings };
  /**
   * The next `up`'s settings: the interrupted update's (after `pulumi destroy`, those deployed: `up`
   * with the same config installs it again).
   */
  readonly next: CalicoSettings;
}

/** A step of an update that changes the cluster. */
export interface InterruptedStep {
  readonly name: string;
  /** The step begins at the first resource-pre event of a resource of one of these types with one of these ops. */
  readonly begins: { readonly types: readonly string[]; readonly ops: readonly string[] };
  readonly scenarios: fc.Arbitrary<Scenario>;
}

/**
 * Whether a step of `op` on the resource `urn` (a URN, or an identity of the offline diff: both end in
 * the resource's type chain and name) is where `step` begins: the resource is of one of its types, or a
 * child of one (the probe's objects are its component's children).
 */
export function beginsAt(step: InterruptedStep, urn: string, op: string): boolean {
  return (
    step.begins.ops.includes(op) &&
    step.begins.types.some((t) => urn.includes(`${t}::`) || urn.includes(`${t}$`))
  );
}

const ALL_RELEASES = Object.values(CALICO_RELEASES).flat();

/**
 * The settings every case varies, besides its step's: a release, a namespace, the rollout budget, the
 * registry and the probe. The probe's timeout stays short: a case's run time is the suite's.
 */
const base = fc.record({
  installer: fc.constant("manifest"),
  version: fc.constantFrom(...ALL_RELEASES),
  namespace: fc.constantFrom("kube-system", "calico-policy"),
  maxUnavailable: fc.oneof(fc.integer({ min: 1, max: 2 }), fc.constantFrom("50%", "100%")),
  registry: fc.constantFrom("quay.io/calico", "123456789012.dkr.ecr.us-west-2.amazonaws.com/calico"),
  probe: fc.record({ enabled: fc.boolean(), timeoutMinutes: fc.constant(5) }),
});

/** `calico.adopt` over an old manifest in kube-system, the namespace every fixture installs to. */
const adoption: fc.Arbitrary<Scenario> = fc
  .record({ calico: base, manifest: fc.constantFrom(...ADOPT_FIXTURES) })
  .map(({ calico, manifest }) => {
    const adopting = { ...calico, namespace: "kube-system", adopt: true };
    return { manifest, interrupted: { operation: "up", calico: adopting }, next: adopting };
  });

/** Two releases of different lines, either way round. */
const lineChange = fc
  .tuple(fc.constantFrom(...ALL_RELEASES), fc.constantFrom(...ALL_RELEASES))
  .filter(([from, to]) => calicoMinorOf(from) !== calicoMinorOf(to));

/** An install with the probe off, then on; or on, then a patch release of the same line, which runs it again. */
const probeRun: fc.Arbitrary<Scenario> = fc
  .record({
    calico: base,
    turnedOn: fc.boolean(),
    to: fc.constantFrom(...ALL_RELEASES),
  })
  .filter(
    ({ calico, turnedOn, to }) =>
      turnedOn || (to !== calico.version && calicoMinorOf(to) === calicoMinorOf(calico.version)),
  )
  .map(({ calico, turnedOn, to }) => {
    const probe = { ...calico.probe, enabled: true };
    const deployed = turnedOn ? { ...calico, probe: { ...probe, enabled: false } } : { ...calico, probe };
    const changed = turnedOn ? { ...calico, probe } : { ...calico, probe, version: to };
    return { deployed, interrupted: { operation: "up", calico: changed }, next: changed };
  });

/** `pulumi destroy`, or a reinstall's first update: it removes the install, to put it in another namespace next. */
const removal: fc.Arbitrary<Scenario> = fc
  .record({ calico: base, destroy: fc.boolean() })
  .map(({ calico, destroy }): Scenario => {
    if (destroy) return { deployed: calico, interrupted: { operation: "destroy", calico }, next: calico };
    const moved = {
      ...calico,
      namespace: calico.namespace === "kube-system" ? "calico-policy" : "kube-system",
      reinstall: true,
    };
    return { deployed: calico, interrupted: { operation: "up", calico: moved }, next: moved };
  });

export const INTERRUPTED_STEPS: readonly InterruptedStep[] = [
  {
    name: "takeover",
    begins: { types: [TAKEOVER_TYPE], ops: ["create"] },
    scenarios: adoption,
  },
  {
    name: "line check",
    begins: { types: [LINE_CHECK_TYPE], ops: ["update"] },
    scenarios: fc.record({ calico: base, line: lineChange }).map(({ calico, line: [from, to] }) => {
      const changed = { ...calico, version: to };
      return {
        deployed: { ...calico, version: from },
        interrupted: { operation: "up", calico: changed },
        next: changed,
      };
    }),
  },
  {
    name: "Felix cleanup",
    begins: { types: [FELIX_CLEANUP_TYPE], ops: ["delete"] },
    scenarios: removal,
  },
  {
    // What a removal deletes once Felix's rules are gone: calico-node first, then Typha and the rest.
    name: "removal's deletes",
    begins: { types: ["kubernetes:apps/v1:DaemonSet"], ops: ["delete"] },
    scenarios: removal,
  },
  {
    name: "Typha retirement",
    begins: { types: [TYPHA_RETIREMENT_TYPE], ops: ["create"] },
    scenarios: adoption,
  },
  {
    name: "probe",
    begins: { types: [PROBE_TYPE], ops: ["create", "update", "replace", "create-replacement"] },
    scenarios: probeRun,
  },
  {
    // The operator cannot convert this program's manifest install in place (operator/migration.ts: its
    // calico-node has env and affinity the converter refuses), so a switch is a reinstall: the first
    // update removes the manifest install, the next installs the operator.
    name: "installer switch",
    begins: { types: [FELIX_CLEANUP_TYPE], ops: ["delete"] },
    scenarios: fc
      .record({ calico: base, to: fc.constantFrom(...OPERATOR_CALICO_RELEASES) })
      .map(({ calico, to }) => {
        const operator = { installer: "operator", version: to, reinstall: true, probe: calico.probe };
        return { deployed: calico, interrupted: { operation: "up", calico: operator }, next: operator };
      }),
  },
];

/** Dynamic resource types no row covers, each with why the property cannot run it here. */
export const NOT_INTERRUPTED: Readonly<Record<string, string>> = {
  [INSTALL_CHECK_TYPE]:
    "it only reads the cluster (in its check and diff) and changes nothing, so stopping it leaves nothing to converge",
  [FELIX_RESTORE_TYPE]:
    "it changes the cluster only over a cleanup an interrupted removal left: the Felix cleanup and installer switch rows' next up runs it, and the property holds that up to the healthy state; stopping that up too takes two interruptions, which no case makes",
  [REMOVAL_MARKER_TYPE]:
    "it writes one ConfigMap (kube-system/calico-removal) before any object of a removal goes, and deletes it after an install: stopped, it has removed nothing; the Felix cleanup row's interruptions come after it and its refusal is followed",
  [AWS_NODE_CHECK_TYPE]:
    "the existing-cluster mode's, which reads EKS: that stack cannot run on the local cluster (docs/real-cluster.md); it only reads",
  [HAND_OVER_TYPE]:
    "the existing-cluster mode's, which reads EKS: that stack cannot run on the local cluster (docs/real-cluster.md)",
};
