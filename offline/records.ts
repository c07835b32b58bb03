/**
 * What the offline engine (engine.ts) records of a program's run: each resource registration and the stack
 * outputs. A module of its own so that what reads a record (plan.ts, hierarchy.ts) does not depend on the
 * engine and the simulated world behind it.
 */

/** One resource as the Pulumi engine would receive it. */
export interface ResourceRecord {
  readonly urn: string;
  readonly type: string;
  readonly name: string;
  /** A custom resource (provider-managed) rather than a component. */
  readonly custom: boolean;
  /** A component implemented by a provider plugin (@pulumi/eks): its children are not visible. */
  readonly remote: boolean;
  /** URN of the parent; undefined only for the stack itself. */
  readonly parent?: string;
  /** URN of the explicit provider, if one was given. */
  readonly provider?: string;
  /** URNs of explicit and implicit dependencies (dependsOn and inputs that are other resources' outputs). */
  readonly dependencies: string[];
  /** For each input key, the URNs of the resources its value came from. */
  readonly propertyDependencies: Record<string, string[]>;
  /** Inputs with secrets unwrapped and resource references replaced by their URN. */
  readonly inputs: Record<string, unknown>;
  /** Top-level input keys that hold a secret. */
  readonly secretInputs: string[];
  /** URNs this resource had before (its aliases): Pulumi updates the old resource instead of replacing it. */
  readonly aliases: string[];
  readonly options: {
    readonly protect: boolean;
    readonly retainOnDelete: boolean;
    readonly deleteBeforeReplace: boolean;
    readonly ignoreChanges: string[];
    readonly replaceOnChanges: string[];
    readonly customTimeouts?: { create?: string; update?: string; delete?: string };
    /** The id of an existing resource the stack takes over (the `import` option). */
    readonly importId?: string;
  };
}

export interface StackEvaluation {
  readonly project: string;
  readonly stack: string;
  /** In registration order. */
  readonly resources: ResourceRecord[];
  /** Stack outputs, resolved. */
  readonly outputs: Record<string, unknown>;
  /** Output names that are secret. */
  readonly secretOutputs: string[];
  /** What the offline world answered in AWS's place (node counts, zone IDs, an existing cluster). */
  readonly simulated: string[];
}
