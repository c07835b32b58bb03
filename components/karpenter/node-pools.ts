/**
 * The NodePools and the EC2NodeClass of `karpenter.nodePools`, as karpenter.sh/v1 and karpenter.k8s.aws/v1
 * objects. Every pool's nodes start with the Calico startup taint as a startup taint: Karpenter then
 * counts a pending pod as placed on the node it launched (no second launch) and marks the node
 * initialized once the remover takes the taint off (components/startup-taint; docs/operating-calico.md).
 */
import { STARTUP_TAINT, STARTUP_TAINT_VALUE } from "../startup-taint/objects";
import { NODE_METADATA_OPTIONS } from "../cluster/policies";

/** One pool as `karpenter.nodePools` gives it, defaults applied (stacks/schema/karpenter.ts). */
export interface NodePoolSettings {
  readonly capacityTypes: readonly string[];
  readonly architectures: readonly string[];
  readonly instanceCategories: readonly string[];
  readonly minGeneration: number;
  readonly minVcpus: number;
  readonly limits: { readonly cpu: number };
  readonly consolidationPolicy: string;
  readonly consolidateAfter: string;
  readonly budgets: readonly { nodes: string; schedule?: string; duration?: string; reasons?: string[] }[];
  readonly expireAfter: string;
  readonly amiAlias: string;
  readonly diskSizeGiB: number;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly { key: string; value: string; effect: string }[];
}

/** Where a NodePool's nodes get their EC2 settings: the class's group, kind and name. */
export interface NodeClassRef {
  readonly group: string;
  readonly kind: string;
  readonly name: string;
}

/** Each pool's own EC2NodeClass, of the same name (its AMI and disk are the pool's). */
export const ec2NodeClassRef = (pool: string): NodeClassRef => ({
  group: "karpenter.k8s.aws",
  kind: "EC2NodeClass",
  name: pool,
});

/** The tag Karpenter finds the stack's private subnets and node security group by (a convention only). */
export const DISCOVERY_TAG = "karpenter.sh/discovery";

export interface NodePool {
  apiVersion: "karpenter.sh/v1";
  kind: "NodePool";
  metadata: { name: string };
  spec: Record<string, unknown>;
}

/** `name`'s NodePool: its instance requirements, limits and disruption, and the startup taint. */
export function renderNodePool(
  name: string,
  pool: NodePoolSettings,
  nodeClass: NodeClassRef = ec2NodeClassRef(name),
): NodePool {
  const requirement = (key: string, operator: "In" | "Gt", values: readonly (string | number)[]) => ({
    key,
    operator,
    values: values.map(String),
  });
  return {
    apiVersion: "karpenter.sh/v1",
    kind: "NodePool",
    metadata: { name },
    spec: {
      template: {
        ...(Object.keys(pool.labels).length > 0 ? { metadata: { labels: { ...pool.labels } } } : {}),
        spec: {
          nodeClassRef: { ...nodeClass },
          requirements: [
            requirement("kubernetes.io/os", "In", ["linux"]),
            requirement("kubernetes.io/arch", "In", pool.architectures),
            requirement("karpenter.sh/capacity-type", "In", pool.capacityTypes),
            requirement("karpenter.k8s.aws/instance-category", "In", pool.instanceCategories),
            requirement("karpenter.k8s.aws/instance-generation", "Gt", [pool.minGeneration - 1]),
            requirement("karpenter.k8s.aws/instance-cpu", "Gt", [pool.minVcpus - 1]),
          ],
          ...(pool.taints.length > 0 ? { taints: pool.taints.map((taint) => ({ ...taint })) } : {}),
          startupTaints: [{ ...STARTUP_TAINT, value: STARTUP_TAINT_VALUE }],
          expireAfter: pool.expireAfter,
        },
      },
      limits: { cpu: String(pool.limits.cpu) },
      disruption: {
        consolidationPolicy: pool.consolidationPolicy,
        consolidateAfter: pool.consolidateAfter,
        budgets: pool.budgets.map((budget) => ({ ...budget })),
      },
    },
  };
}

export interface Ec2NodeClass {
  apiVersion: "karpenter.k8s.aws/v1";
  kind: "EC2NodeClass";
  metadata: { name: string };
  spec: Record<string, unknown>;
}

/**
 * `name`'s EC2NodeClass: the node role Karpenter makes the instance profile of, the pool's AMI, the
 * subnets and security group tagged for discovery with `clusterName`, IMDSv2 with hop limit 1 and an
 * encrypted gp3 root volume, as the managed node groups have them (components/cluster/nodes.ts).
 */
export function renderNodeClass(
  name: string,
  pool: NodePoolSettings,
  {
    clusterName,
    nodeRole,
    tags,
  }: { clusterName: string; nodeRole: string; tags: Readonly<Record<string, string>> },
): Ec2NodeClass {
  const discovery = [{ tags: { [DISCOVERY_TAG]: clusterName } }];
  return {
    apiVersion: "karpenter.k8s.aws/v1",
    kind: "EC2NodeClass",
    metadata: { name },
    spec: {
      role: nodeRole,
      amiSelectorTerms: [{ alias: pool.amiAlias }],
      subnetSelectorTerms: discovery,
      securityGroupSelectorTerms: discovery,
      metadataOptions: { ...NODE_METADATA_OPTIONS, httpProtocolIPv6: "disabled" },
      blockDeviceMappings: [
        {
          deviceName: "/dev/xvda",
          rootVolume: true,
          ebs: {
            volumeSize: `${pool.diskSizeGiB}Gi`,
            volumeType: "gp3",
            encrypted: true,
            deleteOnTermination: true,
          },
        },
      ],
      ...(Object.keys(tags).length > 0 ? { tags: { ...tags } } : {}),
    },
  };
}
