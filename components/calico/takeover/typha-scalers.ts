/**
 * Deployments that scale a Typha: cluster-proportional-autoscaler instances whose `--target` names its
 * Deployment. The amazon-vpc-cni-k8s Calico manifests run one, `calico-typha-horizontal-autoscaler`
 * (config/v1.5 and v1.6 calico.yaml), with `--target=deployment/calico-typha`. Left running after a
 * takeover, it would resize the Typha of that name, which is this program's own once `calico.adopt` is
 * off again, against this program's autoscaler: so the Typha retirement step deletes every one that scales
 * the retired Typha, and the adoption report says so. Pure functions of a Deployment as the API returns it.
 *
 * The flag, from kubernetes-sigs/cluster-proportional-autoscaler v1.9.1: `--target` is a comma-separated
 * list of `kind/name` (cmd/cluster-proportional-autoscaler/options/options.go: "not case sensitive, comma
 * delimiter supported"), a kind `deployment` or `deployments` in any case (pkg/autoscaler/k8sclient/
 * k8sclient.go getTarget, strings.ToLower(target.kind)), in the namespace of `--namespace` (options.go,
 * "fallback to the namespace of this autoscaler": its own). Flags are spf13/pflag's: `--name=value` or
 * `--name value`.
 */

/** A Deployment as the API returns it, with what the check reads. */
export interface ScalerDeployment {
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly spec?: {
    readonly template?: {
      readonly spec?: { readonly containers?: readonly { command?: string[]; args?: string[] }[] };
    };
  };
}

/** The values of flag `--<name>` in a command line, as spf13/pflag reads it: `--name=value`, `--name value`. */
function flagValues(argv: readonly string[], name: string): string[] {
  const values: string[] = [];
  argv.forEach((arg, i) => {
    if (arg.startsWith(`--${name}=`)) values.push(arg.slice(name.length + 3));
    else if (arg === `--${name}` && i + 1 < argv.length) values.push(argv[i + 1]);
  });
  return values;
}

/** Whether `deployment` runs an autoscaler whose `--target` names Deployment `namespace`/`name`. */
export function scalesDeployment(deployment: ScalerDeployment, namespace: string, name: string): boolean {
  return (deployment.spec?.template?.spec?.containers ?? []).some((container) => {
    const argv = [...(container.command ?? []), ...(container.args ?? [])];
    const targetNamespace = flagValues(argv, "namespace").pop() ?? deployment.metadata.namespace;
    if (targetNamespace !== namespace) return false;
    return flagValues(argv, "target")
      .slice(-1)
      .flatMap((targets) => targets.split(","))
      .map((target) => target.trim().split("/"))
      .some(
        (parts) =>
          parts.length === 2 &&
          ["deployment", "deployments"].includes(parts[0].toLowerCase()) &&
          parts[1] === name,
      );
  });
}
