/**
 * The shapes of a plan diff (diff.ts): a resource's step, each property change and what it does. Their own
 * module, since diff.ts, diff-effects.ts and diff-cascade.ts all use them and diff.ts uses the other two.
 */

/** What a change does: forces replacement, updates in place, is ignored, or may replace ("unknown"). */
export type Effect = "replace" | "update" | "ignored" | "unknown";

/** One property that differs; undefined stands for "absent". */
export interface PropertyChange {
  readonly path: string;
  readonly before: unknown;
  readonly after: unknown;
  /** Undefined for stack outputs. */
  readonly effect?: Effect;
  /** Why, when it is not the plain value change (a cascade, an ignore rule). */
  readonly note?: string;
  /** For a change that forces replacement: the rule that says so (replacements.ts). */
  readonly source?: string;
}

/** Pulumi's step for a resource; `same` resources appear only when they have ignored changes. */
export type Operation = "create" | "update" | "replace" | "delete" | "unknown" | "same";

export interface ResourceDiff {
  /** `<type> <name>`. */
  readonly heading: string;
  /** URN without stack and project. */
  readonly identity: string;
  readonly op: Operation;
  /** Empty for created and deleted resources. */
  readonly changes: PropertyChange[];
  /** Why `pulumi up` would refuse the step (a protected resource replaced or deleted). */
  readonly blocked?: string;
  /** The old resource goes before the new one exists (deleteBeforeReplace, or a fixed Kubernetes name). */
  readonly deleteBeforeReplace?: boolean;
  /** Deleted from the stack only: retainOnDelete leaves the object in the cloud or cluster. */
  readonly retained?: boolean;
  /** What the step does to the machines the resource runs (a node group's nodes), by its rule's rollout. */
  readonly rollout?: string;
  /** A protected resource that may be replaced: `pulumi up` stops if it is. */
  readonly mayBlock?: string;
}

export interface PlanDiff {
  readonly before: { readonly project: string; readonly stack: string };
  readonly after: { readonly project: string; readonly stack: string };
  readonly added: ResourceDiff[];
  readonly removed: ResourceDiff[];
  /** Updated, replaced or unknown, and unchanged resources whose changes are all ignored. */
  readonly changed: ResourceDiff[];
  readonly unchanged: number;
  readonly outputs: PropertyChange[];
  /**
   * Steps the plan shows no change for whose diff reads the cluster (replacements.ts `readsCluster`): each
   * may still update, which only `up` knows. Absent in a diff made before there were any.
   */
  readonly decidedInUp?: DecidedInUp[];
}

/** A step whose update the cluster decides. */
export interface DecidedInUp {
  readonly heading: string;
  readonly identity: string;
  readonly why: string;
}
