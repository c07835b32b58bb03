/**
 * The shapes of a plan diff (diff.ts): a resource's step, each property change and what it does, and the
 * replacement rule of a resource type (replacements.ts, step-replacements.ts). Their own module, since
 * diff.ts, diff-effects.ts, diff-cascade.ts and the rules' files all use them and import one another.
 */

import type { ResourceRecord } from "./records";

/** A resource's side of a step, as a rollout reads it: its inputs and options. */
export type RolloutSide = Pick<ResourceRecord, "inputs" | "options">;

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
  /** It keeps the state of another URN through an alias, or it is a component whose child does. */
  readonly moved?: string;
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

/** Which input changes replace a resource of one type, and what its other changes do (replacements.ts). */
export interface ReplacementRule {
  /** Input paths whose change replaces the resource. */
  readonly replaceOn: readonly string[];
  /** For remote components: input paths known to update in place inside the component. */
  readonly updateOn?: readonly string[];
  /** Every input change replaces it (resources the provider cannot update at all). */
  readonly replaceOnAnyChange?: boolean;
  /**
   * A step whose diff reads the cluster: with no input changed it still updates when the cluster holds
   * what it looks for, which only `up` (or `pulumi preview`) can see. The plan lists it with this reason.
   */
  readonly readsCluster?: string;
  /**
   * For remote components: what happens inside is decided by the component at deploy time; changes to
   * paths not listed in replaceOn or updateOn may replace it, and the diff says so with this reason.
   */
  readonly remote?: string;
  /** Why a change at one of these paths may replace it, where the reason is narrower than `remote`. */
  readonly mayReplace?: Readonly<Record<string, string>>;
  /** What an in-place update at a path does beyond the resource itself, shown beside the change. */
  readonly updateNotes?: Readonly<Record<string, string>>;
  /** Input paths the resource (or the component inside) ignores once created, when `when` holds. */
  readonly ignored?: {
    readonly path: string;
    readonly when: (inputs: Record<string, unknown>) => boolean;
    readonly why: string;
  }[];
  /**
   * Outputs an in-place update changes, so that what takes them changes too: any input change except at
   * `except` changes `outputs` (a launch template's new version, which its node group then rolls to).
   */
  readonly updateOutputs?: {
    readonly outputs: readonly string[];
    readonly except: readonly string[];
    readonly why: string;
  };
  /**
   * What an update at `rollOn`, or a replacement, does to the machines the resource runs, from its inputs
   * and options before and after and, where the base plan's outputs record it, its deployed size
   * (`deployed`).
   */
  readonly rollout?: {
    readonly rollOn: readonly string[];
    readonly deployed: (outputs: Record<string, unknown>, resourceName: string) => number | undefined;
    readonly roll: (before: RolloutSide, after: RolloutSide, deployed?: number) => string;
    readonly replace: (before: RolloutSide, after: RolloutSide, deployed?: number) => string;
    /** An update at none of `rollOn`, by the top-level inputs it changes: what the machines keep. */
    readonly inPlace?: (fields: readonly string[]) => string;
  };
  /**
   * The AWS provider resource whose ForceNew schema (aws-force-new.ts) replaceOn follows. `names` maps a
   * Terraform path to the inputs that carry it where they are not its camelCase (a component's own
   * inputs); `partial` marks a component that exposes only some of the resource's arguments.
   */
  readonly tf?: {
    readonly resource: string;
    readonly names?: Readonly<Record<string, readonly string[]>>;
    readonly partial?: true;
  };
  readonly source: string;
}
