/**
 * One owner for the vpc-cni add-on's settings: the add-on's configuration, as AWS shows it before any
 * resource (stacks/existing.ts), against what this stack's last update set in it (its `vpcCni.settings`
 * output). A setting that differs was changed by someone else since: eksctl (`addons[].configurationValues`),
 * Terraform (`aws_eks_addon.configuration_values`), the console or another stack. Each would set its value
 * back on its next run, and aws-node would flip between the two. Ownership cannot be told from the
 * add-on's tags instead: eksctl creates an add-on with only the tags its config lists
 * (eksctl pkg/actions/addon/create.go), and the aws:cloudformation:* tags CloudFormation adds are dropped
 * by `aws.eks.getAddon` (terraform-provider-aws internal/service/eks/addon_data_source.go: IgnoreAWS()).
 */
import { configuredSetting } from "./vpc-cni";

/** An owned setting the add-on's configuration no longer has as this stack set it. */
export interface SettingChangedElsewhere {
  readonly key: string;
  /** What this stack's last update set. */
  readonly set: string;
  /** What the add-on's configuration has now; undefined when unset. */
  readonly now: string | undefined;
}

/** The settings of `previous` (the last update's) that the add-on's configuration values have otherwise. */
export function changedElsewhere(
  previous: Readonly<Record<string, string>> | undefined,
  configurationValues: string,
): SettingChangedElsewhere[] {
  return Object.keys(previous ?? {})
    .sort()
    .flatMap((key) => {
      const set = (previous as Record<string, string>)[key];
      const now = configuredSetting(configurationValues, key);
      return now === set ? [] : [{ key, set, now }];
    });
}

/** `key: "set" -> "now"`, one per setting, as the `vpcCni` output's `changedElsewhere` lists them. */
export function describeChanges(changes: readonly SettingChangedElsewhere[]): string[] {
  return changes.map(
    (c) => `${c.key}: ${JSON.stringify(c.set)} -> ${c.now === undefined ? "unset" : JSON.stringify(c.now)}`,
  );
}

/** What to do about it: make this stack the only tool that sets these keys. */
export function changedElsewhereWarning(
  cluster: string,
  changes: readonly SettingChangedElsewhere[],
): string {
  const keys = changes.map((c) => c.key).join(", ");
  return (
    `the vpc-cni add-on of ${cluster} was changed outside this stack since its last update ` +
    `(${describeChanges(changes).join("; ")}). This update sets ${changes.length === 1 ? "it" : "them"} ` +
    `back; whatever changed ${changes.length === 1 ? "it" : "them"} will change ${changes.length === 1 ? "it" : "them"} ` +
    `again on its next run, and aws-node flips each time. Leave ${keys} to this stack: remove ` +
    `${changes.length === 1 ? "it" : "them"} from the other tool's add-on configuration (eksctl ` +
    `addons[].configurationValues, Terraform aws_eks_addon configuration_values, another stack).`
  );
}
