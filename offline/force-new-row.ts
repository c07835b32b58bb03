/** One row of the AWS provider's ForceNew facts (aws-force-new.ts): a type, its file and what replaces it. */
export interface ForceNewRow {
  /** The Pulumi type token whose rule follows this row. */
  readonly type: string;
  readonly tfResource: string;
  /** Path in the terraform-provider-aws repository. */
  readonly file: string;
  /** The stored copy the row was read from: commit of that file version, and what dates it. */
  readonly readAt: string;
  /** Arguments marked `ForceNew: true` in the schema. */
  readonly forceNew: readonly string[];
  /** ForceNew only when a CustomizeDiff function says so. */
  readonly forceNewIf?: readonly { readonly path: string; readonly when: string }[];
  /** Other arguments the program sets, confirmed in the same copy to update in place. */
  readonly updates: readonly string[];
  /**
   * A versioned resource's arguments whose update makes no new version (a launch template's: those outside
   * resourceLaunchTemplateUpdate's updateKeys); a change to any other argument makes one.
   */
  readonly noNewVersion?: readonly string[];
  readonly note?: string;
}
