/**
 * The line check: before any Calico object is applied on a line (a first install, or a change of line),
 * it lists the cluster's objects of the policy kinds that line does not enforce (line-policies.ts) and
 * refuses while any exists, naming each. Every Calico object depends on it, so a refusal leaves the
 * install as it runs.
 *
 * A dynamic resource that runs in the Node.js program with the stack's kubeconfig. Its diff reads the
 * cluster when the line changes and throws the refusal there, so `pulumi preview` (and the preview of
 * `pulumi up`) says it before anything changes. With the same line it is unchanged and reads nothing: a
 * policy written later on the same line is the user's own change, and `pulumi preview --expect-no-changes`
 * stays clean on a cluster that did not move.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ClusterAccess } from "../cluster/provider";
import { credentialsOf, kubeGetOrMissing } from "../kubernetes/client";
import { type CalicoMinor, supportedMinorOf } from "./defaults";
import {
  type PolicyKind,
  type UnenforcedPolicy,
  lineRefusal,
  policyListPath,
  unenforcedPolicyKinds,
} from "./line-policies";

/** The dynamic resource's type token, `pulumi-nodejs:dynamic/<module>:<type>` (@pulumi/pulumi dynamic). */
export const LINE_CHECK_TYPE = "pulumi-nodejs:dynamic/calico:LineCheck";

export interface LineCheckInputs {
  readonly kubeconfig: string;
  readonly context?: string;
  /** The line of the Calico release about to be installed (not the release: a patch changes nothing here). */
  readonly line: CalicoMinor;
  /** The policy kinds `line` does not enforce. */
  readonly kinds: PolicyKind[];
}

/** Every object of `inputs.kinds` in the cluster; a kind whose CRD is absent has none. */
async function unenforcedPolicies(inputs: LineCheckInputs): Promise<UnenforcedPolicy[]> {
  const credentials = credentialsOf(inputs.kubeconfig, inputs.context);
  const found: UnenforcedPolicy[] = [];
  for (const kind of inputs.kinds) {
    const list = await kubeGetOrMissing<{ items?: { metadata: { name: string } }[] }>(
      credentials,
      policyListPath(kind),
    );
    for (const item of list?.items ?? []) found.push({ kind: kind.kind, name: item.metadata.name });
  }
  return found;
}

/** Whether the step moves to another line (or the kinds of a line were corrected). */
function lineChanged(olds: LineCheckInputs, news: LineCheckInputs): boolean {
  return olds.line !== news.line || JSON.stringify(olds.kinds) !== JSON.stringify(news.kinds);
}

/** Throws the refusal when the cluster has objects the line will not enforce. */
async function checkLine(inputs: LineCheckInputs): Promise<void> {
  const found = await unenforcedPolicies(inputs);
  if (found.length > 0) throw new Error(lineRefusal(inputs.line, found));
}

/** Loaded from its serialized text by Pulumi's dynamic provider host: it calls only imported functions. */
export const lineCheckProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: LineCheckInputs) {
    await checkLine(inputs);
    return { id: "line-check", outs: inputs };
  },
  async diff(_id: string, olds: LineCheckInputs, news: LineCheckInputs) {
    if (!lineChanged(olds, news)) {
      // The same line enforces what it did: new credentials only update the step, which reads nothing.
      return { changes: olds.kubeconfig !== news.kubeconfig || olds.context !== news.context };
    }
    let found: UnenforcedPolicy[];
    try {
      found = await unenforcedPolicies(news);
    } catch {
      // Unreadable now: the update runs the check, which reports why.
      return { changes: true };
    }
    if (found.length > 0) throw new Error(lineRefusal(news.line, found));
    return { changes: true };
  },
  async update(_id: string, olds: LineCheckInputs, news: LineCheckInputs) {
    if (lineChanged(olds, news)) await checkLine(news);
    return { outs: news };
  },
};

export interface CalicoLineCheckArgs {
  /** The kubeconfig of the cluster (secret) and its context, as the Kubernetes provider has them. */
  readonly kubeconfig: pulumi.Input<string>;
  readonly context?: pulumi.Input<string>;
  /** The Calico release about to be installed. */
  readonly version: string;
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
      },
      opts,
      "calico",
      "LineCheck",
    );
  }
}

/** The line check of Calico `version` on the cluster `access` reaches, a child of the install `parent`. */
export function lineCheckOf(name: string, parent: pulumi.Resource, access: ClusterAccess, version: string) {
  return new CalicoLineCheck(
    `${name}-line-check`,
    { kubeconfig: access.kubeconfig, context: access.context, version },
    { parent },
  );
}
