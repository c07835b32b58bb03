/**
 * The line check: before any Calico object is applied on a line (a first install, or a change of line),
 * it lists the cluster's objects of the policy kinds that line does not enforce (line-policies.ts) and
 * the Calico policies whose tier the line reads otherwise than the deployed one, or leaves in a tier the
 * install retires (policy-tiers.ts), and refuses while any exists, naming each. Every Calico object
 * depends on it, so a refusal leaves the install as it runs.
 *
 * A dynamic resource that runs in the Node.js program with the stack's kubeconfig. Its diff reads the
 * cluster when the line changes and throws the refusal there, so `pulumi preview` (and the preview of
 * `pulumi up`) says it before anything changes; so does an answer it cannot read (only a 404 is "no such
 * kind"). With the same line it is unchanged and reads nothing: a policy written later on the same line
 * is the user's own change, and `pulumi preview --expect-no-changes` stays clean on a cluster that did
 * not move.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ClusterAccess } from "../cluster/provider";
import { type Credentials, credentialsOf, kubeGetOrMissing } from "../kubernetes/client";
import { type CalicoMinor, supportedMinorOf } from "./defaults";
import {
  type PolicyKind,
  type UnenforcedPolicy,
  lineRefusal,
  policyListPath,
  unenforcedPolicyKinds,
} from "./line-policies";
import type { Installer } from "./operator/settings";
import {
  RETIRED_TIERS,
  type StoredPolicy,
  TIERED_POLICY_KINDS,
  type TierMove,
  tierMoves,
  tierRefusal,
} from "./policy-tiers";

/** The dynamic resource's type token, `pulumi-nodejs:dynamic/<module>:<type>` (@pulumi/pulumi dynamic). */
export const LINE_CHECK_TYPE = "pulumi-nodejs:dynamic/calico:LineCheck";

export interface LineCheckInputs {
  readonly kubeconfig: string;
  readonly context?: string;
  /** The line of the Calico release about to be installed (not the release: a patch changes nothing here). */
  readonly line: CalicoMinor;
  /** The policy kinds `line` does not enforce. */
  readonly kinds: PolicyKind[];
  /** Who installs it: the tiers an installer retires depend on it. Absent in a step an older program made. */
  readonly installer?: Installer;
}

/** Every object of `kind`, or none when its CRD is absent; any other answer fails, naming the kind. */
async function listKind<T>(credentials: Credentials, kind: PolicyKind): Promise<T[]> {
  try {
    const list = await kubeGetOrMissing<{ items?: T[] }>(credentials, policyListPath(kind));
    return list?.items ?? [];
  } catch (error) {
    const answer = error instanceof Error ? error.message : String(error);
    throw new Error(
      `calico.version: the line check could not list ${kind.kind} (${kind.plural}.${kind.group}): ${answer}. Before a change of Calico line it reads every object of this kind, and it cannot tell whether the change is safe without them. Nothing was changed. Give these credentials list on ${kind.plural}.${kind.group} (or fix the answer above), then run it again.`,
      { cause: error },
    );
  }
}

/** The problems of installing `inputs.line` over line `from` (undefined: a first install), all at once. */
async function lineProblems(inputs: LineCheckInputs, from: CalicoMinor | undefined): Promise<string[]> {
  const credentials = credentialsOf(inputs.kubeconfig, inputs.context);
  const found: UnenforcedPolicy[] = [];
  for (const kind of inputs.kinds) {
    const items = await listKind<{ metadata: { name: string } }>(credentials, kind);
    for (const item of items) found.push({ kind: kind.kind, name: item.metadata.name });
  }
  const installer = inputs.installer ?? "manifest";
  const retires = RETIRED_TIERS.some((r) => r.installer === installer && r.line === inputs.line);
  const moves: TierMove[] = [];
  if ((from !== undefined && from !== inputs.line) || retires) {
    for (const kind of TIERED_POLICY_KINDS) {
      const policies = await listKind<StoredPolicy>(credentials, kind);
      moves.push(...tierMoves(kind.kind, policies, from, inputs.line, installer));
    }
  }
  return [
    ...(found.length > 0 ? [lineRefusal(inputs.line, found)] : []),
    ...(moves.length > 0 ? [tierRefusal(from, inputs.line, moves)] : []),
  ];
}

/** Whether the step moves to another line (or the kinds of a line were corrected). */
function lineChanged(olds: LineCheckInputs, news: LineCheckInputs): boolean {
  return olds.line !== news.line || JSON.stringify(olds.kinds) !== JSON.stringify(news.kinds);
}

/** Throws every refusal at once when the cluster holds what line `inputs.line` would not apply as now. */
async function checkLine(inputs: LineCheckInputs, from: CalicoMinor | undefined): Promise<void> {
  const problems = await lineProblems(inputs, from);
  if (problems.length > 0) throw new Error(problems.join("\n\n"));
}

/** Whether a preview left an input unknown (the cluster's kubeconfig, while the cluster is replaced). */
const unknown = (value: unknown) => value === pulumi.runtime.unknownValue;

/** Loaded from its serialized text by Pulumi's dynamic provider host: it calls only imported functions. */
export const lineCheckProvider: pulumi.dynamic.ResourceProvider = {
  // A new step (a first install, a reinstall's second update, an installer switch) has no diff: the
  // engine calls `check` for every resource in a preview too, so its refusal shows there, not only in
  // `up`'s create (pulumi v3.248.0 pkg/resource/deploy/step_generator.go: Check, with no olds for a new
  // resource, before any Diff).
  async check(olds: Partial<LineCheckInputs>, news: LineCheckInputs) {
    const known = !unknown(news.kubeconfig) && !unknown(news.context);
    if (olds.line === undefined && known) await checkLine(news, undefined);
    return { inputs: news };
  },
  async create(inputs: LineCheckInputs) {
    await checkLine(inputs, undefined);
    return { id: "line-check", outs: inputs };
  },
  async diff(_id: string, olds: LineCheckInputs, news: LineCheckInputs) {
    if (!lineChanged(olds, news)) {
      // The same line enforces what it did: new credentials only update the step, which reads nothing.
      return { changes: olds.kubeconfig !== news.kubeconfig || olds.context !== news.context };
    }
    // A cluster known only once the update runs: the update checks it.
    if (unknown(news.kubeconfig) || unknown(news.context)) return { changes: true };
    await checkLine(news, olds.line);
    return { changes: true };
  },
  async update(_id: string, olds: LineCheckInputs, news: LineCheckInputs) {
    if (lineChanged(olds, news)) await checkLine(news, olds.line);
    return { outs: news };
  },
};

export interface CalicoLineCheckArgs {
  /** The kubeconfig of the cluster (secret) and its context, as the Kubernetes provider has them. */
  readonly kubeconfig: pulumi.Input<string>;
  readonly context?: pulumi.Input<string>;
  /** The Calico release about to be installed. */
  readonly version: string;
  /** Who installs it. */
  readonly installer: Installer;
}

export class CalicoLineCheck extends pulumi.dynamic.Resource {
  constructor(name: string, args: CalicoLineCheckArgs, opts?: pulumi.CustomResourceOptions) {
    const line = supportedMinorOf(args.version);
    super(
      lineCheckProvider,
      name,
      {
        kubeconfig: pulumi.secret(args.kubeconfig),
        context: args.context,
        line,
        kinds: unenforcedPolicyKinds(line),
        installer: args.installer,
      },
      opts,
      "calico",
      "LineCheck",
    );
  }
}

/**
 * The line check of Calico `version`, installed by `installer`, on the cluster `access` reaches, a child
 * of the install `parent`.
 */
export function lineCheckOf(
  name: string,
  parent: pulumi.Resource,
  access: ClusterAccess,
  version: string,
  installer: Installer,
) {
  return new CalicoLineCheck(
    `${name}-line-check`,
    { kubeconfig: access.kubeconfig, context: access.context, version, installer },
    { parent },
  );
}
