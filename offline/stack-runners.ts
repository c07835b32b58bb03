/**
 * What the workflows and the offline plan need of each stack's `deploy` settings, read from its stack file
 * without any cloud call: the `runs-on` labels of its `pulumi up` and drift jobs, whether GitHub-hosted
 * runners reach its Kubernetes API (pull-request previews always run there), and the plan's warnings
 * (stacks/deploy-path.ts). .github/scripts/list-stacks.js prints these for the workflows.
 */
import { deployPathWarnings } from "../stacks/deploy-path";
import { addonPinWarnings } from "./addon-pins";
import { type StackConfig, validateConfig } from "../stacks";
import { GITHUB_HOSTED_LABELS, runnerLabels } from "../stacks/schema/deploy";
import { namespaceValues } from "../stacks/config-values";
import { coversWholeInternet } from "../components/network/cidr-ranges";
import { type ConfigOverrides, PROJECT_ROOT, deployableStacks, loadStackConfig } from "./config";

/** A stack's `eks-calico:*` keys, validated; undefined when the config is refused (the plan says why). */
function stackConfig(stack: string, overrides: ConfigOverrides, root: string): StackConfig | undefined {
  const { project, values } = loadStackConfig(stack, overrides, root);
  const validated = validateConfig(namespaceValues(values, project));
  return validated.ok ? validated.config : undefined;
}

/** One stack's CI runner. */
export interface StackRunner {
  readonly stack: string;
  /** The `runs-on` labels of its `pulumi up` and drift jobs. */
  readonly labels: readonly string[];
  /**
   * Whether a GitHub-hosted runner reaches its Kubernetes API: a public endpoint open to every address, or
   * a cluster made elsewhere (its endpoint is not in the config; assumed reachable).
   */
  readonly reachableFromGitHub: boolean;
}

/** Whether GitHub-hosted runners reach the cluster's API, as far as the config tells. */
export function reachableFromGitHub(config: Pick<StackConfig, "cluster">): boolean {
  const { cluster } = config;
  if (cluster.existing !== undefined || cluster.kubeconfig !== undefined) return true;
  return coversWholeInternet(cluster.publicAccessCidrs);
}

/**
 * Every deployable stack's runner, sorted by stack. A stack whose config is refused gets GitHub-hosted
 * runners: its preview and deploy then fail with the config's problems, which say what to fix.
 */
export function stackRunners(root: string = PROJECT_ROOT): StackRunner[] {
  return deployableStacks(root).map((stack) => {
    const config = stackConfig(stack, {}, root);
    return config === undefined
      ? { stack, labels: GITHUB_HOSTED_LABELS, reachableFromGitHub: true }
      : { stack, labels: runnerLabels(config.deploy), reachableFromGitHub: reachableFromGitHub(config) };
  });
}

/**
 * The offline plan's warnings for a stack with `overrides`: where its CI cannot reach its API, and the
 * add-on pins only AWS can confirm.
 */
export function planWarnings(
  stack: string,
  overrides: ConfigOverrides = {},
  root: string = PROJECT_ROOT,
): string[] {
  const config = stackConfig(stack, overrides, root);
  return config === undefined ? [] : [...deployPathWarnings(config), ...addonPinWarnings(config)];
}
