/**
 * The aws-node DaemonSet of an existing cluster's vpc-cni add-on, as the offline world imagines it after
 * the add-on's update: what the add-on sets for the owned settings, with values edited on the DaemonSet
 * with kubectl over them (an update with resolveConflicts PRESERVE keeps those: "Amazon EKS preserves the
 * value", UpdateAddon API). Its shape is the aws-vpc-cni chart's (components/existing-cluster/aws-node.ts):
 * env entries on the `aws-node` container, `--enable-network-policy` on `aws-eks-nodeagent`. The real
 * aws-node check judges it (awsNodeRefusal), so the plan refuses as the step would.
 */
import {
  AGENT_CONTAINER,
  AWS_NODE_CONTAINER,
  type AwsNodeDaemonSet,
} from "../../components/existing-cluster/aws-node";

/** Values edited on aws-node, by setting key (`env.<NAME>`, `enableNetworkPolicy`); null: removed. */
export type AwsNodeEdits = Readonly<Record<string, string | null>>;

/** aws-node with the add-on's `settings`, then `edits` over them. */
export function simulatedAwsNode(
  settings: Readonly<Record<string, string>>,
  edits: AwsNodeEdits = {},
): AwsNodeDaemonSet {
  const values: Record<string, string | null> = { ...settings, ...edits };
  const env = Object.entries(values)
    .filter((entry): entry is [string, string] => entry[0].startsWith("env.") && entry[1] !== null)
    .map(([key, value]) => ({ name: key.slice(4), value }));
  const agent = values.enableNetworkPolicy;
  return {
    spec: {
      template: {
        spec: {
          containers: [
            { name: AWS_NODE_CONTAINER, env },
            {
              name: AGENT_CONTAINER,
              args: agent === undefined || agent === null ? [] : [`--enable-network-policy=${agent}`],
            },
          ],
        },
      },
    },
  };
}

/** How the plan says what it assumed of aws-node. */
export function describeAwsNode(cluster: string, edits: AwsNodeEdits): string {
  const edited = Object.entries(edits).map(
    ([key, value]) => `${key} ${value === null ? "removed" : `= ${JSON.stringify(value)}`}`,
  );
  return `the aws-node check: ${cluster}'s aws-node cannot be read offline; simulated as the vpc-cni add-on writes it${edited.length === 0 ? "" : `, with kubectl edits kept by PRESERVE (${edited.join(", ")})`} (the real check reads the DaemonSet during pulumi up)`;
}
