/**
 * The managed node groups AWS already has for the stack: those the last update's `nodeGroupScaling`
 * output names (stacks/scaling-output.ts), each at the desired size it recorded, or at the one an
 * autoscaler set since (NodeGroupSimulation). Answers aws.eks.getNodeGroup, and the desired size an
 * aws.eks.NodeGroup registration leaves on AWS: a new group's desiredSize; a deployed one keeps its desired
 * size while the update ignores it.
 */
import { placeholder } from "./placeholders";
import { type DeployedScaling, previousNodeGroupScaling } from "../../stacks/scaling-output";

/** What happened to the stack's node groups outside Pulumi since its last update. */
export interface NodeGroupSimulation {
  /** Desired sizes an autoscaler set since the last update, by EKS node group name. */
  autoscaledDesiredSizes?: Readonly<Record<string, number>>;
  /** aws.eks.getNodeGroup is refused: the deployer may not call eks:DescribeNodegroup. */
  readDenied?: boolean;
}

/** A node group as a registration leaves it on AWS: the nodes it runs, and why, for the plan. */
export type AppliedNodeGroup = { desiredSize: number; note: string };

/** The name AWS auto-names the aws.eks.NodeGroup `name` with at creation. */
export const eksNodeGroupName = (name: string) => placeholder("node-group-name", name);

export class DeployedNodeGroups {
  /** The deployed groups by EKS node group name. */
  private readonly byName = new Map<string, DeployedScaling>();
  private readonly clusterName: unknown;

  constructor(
    previousOutputs: Record<string, unknown>,
    private readonly simulation: NodeGroupSimulation = {},
  ) {
    for (const group of Object.values(previousNodeGroupScaling(previousOutputs))) {
      this.byName.set(group.nodeGroupName, group);
    }
    this.clusterName = previousOutputs.clusterName;
  }

  /** The desired size AWS shows for a deployed group now. */
  private current(group: DeployedScaling): number {
    return this.simulation.autoscaledDesiredSizes?.[group.nodeGroupName] ?? group.desiredSize;
  }

  /**
   * aws.eks.getNodeGroup (DescribeNodegroup). An unknown group fails as the Terraform data source fails
   * (internal/service/eks/node_group_data_source.go: "reading EKS Node Group (cluster:name): ...") with
   * EKS's ResourceNotFoundException text (aws-samples/eks-workshop-v2#915).
   */
  getNodeGroup(inputs: Record<string, unknown>): Record<string, unknown> {
    const clusterName = String(inputs.clusterName);
    const name = String(inputs.nodeGroupName);
    const id = `${clusterName}:${name}`;
    if (this.simulation.readDenied === true) {
      throw new Error(
        `reading EKS Node Group (${id}): AccessDeniedException: User: ${placeholder("deployer-arn", "offline")} is not authorized to perform: eks:DescribeNodegroup`,
      );
    }
    const group = this.byName.get(name);
    if (group === undefined || (this.clusterName !== undefined && this.clusterName !== clusterName)) {
      throw new Error(
        `reading EKS Node Group (${id}): ResourceNotFoundException: No node group found for name: ${name}.`,
      );
    }
    const scaling = { minSize: group.minSize, desiredSize: this.current(group), maxSize: group.maxSize };
    const settings = group.replacing ?? {};
    return { id, clusterName, nodeGroupName: name, status: "ACTIVE", scalingConfigs: [scaling], ...settings };
  }

  /**
   * The desired size registering the aws.eks.NodeGroup `resourceName` leaves on AWS. A deployed group
   * whose size range changes gets its whole scaling config from the Terraform provider, in
   * UpdateNodegroupConfig (internal/service/eks/node_group.go), with the desired size the program passed,
   * or, where `ignored` (ignoreChanges on it), the one in Pulumi's state (here: the last update's).
   */
  apply(resourceName: string, inputs: Record<string, unknown>, ignored: boolean): AppliedNodeGroup {
    const scaling = (inputs.scalingConfig ?? {}) as {
      minSize?: number;
      desiredSize?: number;
      maxSize?: number;
    };
    const wanted = scaling.desiredSize ?? 0;
    const group = this.byName.get(eksNodeGroupName(resourceName));
    if (group === undefined) return { desiredSize: wanted, note: "its desiredSize" };
    if (ignored && scaling.minSize === group.minSize && scaling.maxSize === group.maxSize) {
      return {
        desiredSize: this.current(group),
        note: "the desired size it runs at; desiredSize is ignored",
      };
    }
    return ignored
      ? {
          desiredSize: group.desiredSize,
          note: "the desired size in Pulumi's state, sent with the new size range",
        }
      : { desiredSize: wanted, note: "the desired size this update sets" };
  }
}
