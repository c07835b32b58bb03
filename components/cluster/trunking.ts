/**
 * Which EC2 instance types take a trunk interface, which security groups for pods need: EKS's VPC resource
 * controller attaches branch interfaces only to types whose `IsTrunkingCompatible` is true in its table.
 *
 * Data, not code: recorded from aws/amazon-vpc-resource-controller-k8s `pkg/aws/vpc/limits.go` (commit
 * b8d4251, generated 2026-03-20), the table the EKS User Guide points to (security-groups-for-pods, "No
 * instance types in the t family are supported"). Of its 1164 types, the 104 below are not trunking
 * compatible. TRUNKING_UNLISTED are the types of eni-limits.ts its table lacks: newer than it, undecided here.
 */
import { ENI_LIMIT_ROWS } from "./eni-limits";

/** The types the controller's table lists as not trunking compatible. */
export const NO_TRUNKING: ReadonlySet<string> = new Set(
  (
    "c1.medium c1.xlarge c3.2xlarge c3.4xlarge c3.8xlarge c3.large c3.xlarge c4.2xlarge c4.4xlarge " +
    "c4.8xlarge c4.large c4.xlarge d2.2xlarge d2.4xlarge d2.8xlarge d2.xlarge f1.16xlarge f1.2xlarge " +
    "f1.4xlarge h1.16xlarge h1.2xlarge h1.4xlarge h1.8xlarge i2.2xlarge i2.4xlarge i2.8xlarge i2.xlarge " +
    "i3.16xlarge i3.2xlarge i3.4xlarge i3.8xlarge i3.large i3.xlarge i4i.large m1.large m1.medium " +
    "m1.small m1.xlarge m2.2xlarge m2.4xlarge m2.xlarge m3.2xlarge m3.large m3.medium m3.xlarge " +
    "m4.10xlarge m4.16xlarge m4.2xlarge m4.4xlarge m4.large m4.xlarge p3.16xlarge p3.2xlarge p3.8xlarge " +
    "r3.2xlarge r3.4xlarge r3.8xlarge r3.large r3.xlarge r4.16xlarge r4.2xlarge r4.4xlarge r4.8xlarge " +
    "r4.large r4.xlarge t1.micro t2.2xlarge t2.large t2.medium t2.micro t2.nano t2.small t2.xlarge " +
    "t3.2xlarge t3.large t3.medium t3.micro t3.nano t3.small t3.xlarge t3a.2xlarge t3a.large t3a.medium " +
    "t3a.micro t3a.nano t3a.small t3a.xlarge t4g.2xlarge t4g.large t4g.medium t4g.micro t4g.nano " +
    "t4g.small t4g.xlarge u-6tb1.112xlarge u-6tb1.56xlarge x1.16xlarge x1.32xlarge x1e.16xlarge " +
    "x1e.2xlarge x1e.32xlarge x1e.4xlarge x1e.8xlarge x1e.xlarge"
  ).split(" "),
);

/** The types of ENI_LIMIT_ROWS the controller's table does not list. */
export const TRUNKING_UNLISTED: ReadonlySet<string> = new Set(
  (
    "bmn-sf1.metal c5a.metal c5ad.metal c7i.32xlarge c8gb.metal-24xl c8gb.metal-48xl c8gn.metal-24xl " +
    "c8gn.metal-48xl c8ib.12xlarge c8ib.16xlarge c8ib.24xlarge c8ib.2xlarge c8ib.32xlarge c8ib.48xlarge " +
    "c8ib.4xlarge c8ib.8xlarge c8ib.96xlarge c8ib.large c8ib.metal-48xl c8ib.metal-96xl c8ib.xlarge " +
    "c8in.12xlarge c8in.16xlarge c8in.24xlarge c8in.2xlarge c8in.32xlarge c8in.48xlarge c8in.4xlarge " +
    "c8in.8xlarge c8in.96xlarge c8in.large c8in.metal-48xl c8in.metal-96xl c8in.xlarge c8ine.12xlarge " +
    "c8ine.2xlarge c8ine.4xlarge c8ine.8xlarge c8ine.large c8ine.xlarge c9g.12xlarge c9g.16xlarge " +
    "c9g.24xlarge c9g.2xlarge c9g.48xlarge c9g.4xlarge c9g.8xlarge c9g.large c9g.medium c9g.metal-48xl " +
    "c9g.xlarge c9gd.12xlarge c9gd.16xlarge c9gd.24xlarge c9gd.2xlarge c9gd.48xlarge c9gd.4xlarge " +
    "c9gd.8xlarge c9gd.large c9gd.medium c9gd.metal-48xl c9gd.xlarge cr1.8xlarge g7.12xlarge g7.24xlarge " +
    "g7.2xlarge g7.48xlarge g7.4xlarge g7.8xlarge hpc6a.48xlarge hpc6id.32xlarge hpc7a.12xlarge " +
    "hpc7a.24xlarge hpc7a.48xlarge hpc7a.96xlarge hpc7g.16xlarge hpc7g.4xlarge hpc7g.8xlarge " +
    "hpc8a.96xlarge hs1.8xlarge m8gb.metal-24xl m8gb.metal-48xl m8gn.metal-24xl m8gn.metal-48xl " +
    "m8ib.12xlarge m8ib.16xlarge m8ib.24xlarge m8ib.2xlarge m8ib.32xlarge m8ib.48xlarge m8ib.4xlarge " +
    "m8ib.8xlarge m8ib.96xlarge m8ib.large m8ib.metal-48xl m8ib.metal-96xl m8ib.xlarge m8idb.12xlarge " +
    "m8idb.16xlarge m8idb.24xlarge m8idb.2xlarge m8idb.32xlarge m8idb.48xlarge m8idb.4xlarge " +
    "m8idb.8xlarge m8idb.96xlarge m8idb.large m8idb.metal-48xl m8idb.metal-96xl m8idb.xlarge " +
    "m8idn.12xlarge m8idn.16xlarge m8idn.24xlarge m8idn.2xlarge m8idn.32xlarge m8idn.48xlarge " +
    "m8idn.4xlarge m8idn.8xlarge m8idn.96xlarge m8idn.large m8idn.metal-48xl m8idn.metal-96xl " +
    "m8idn.xlarge m8in.12xlarge m8in.16xlarge m8in.24xlarge m8in.2xlarge m8in.32xlarge m8in.48xlarge " +
    "m8in.4xlarge m8in.8xlarge m8in.96xlarge m8in.large m8in.metal-48xl m8in.metal-96xl m8in.xlarge " +
    "m8ine.12xlarge m8ine.2xlarge m8ine.4xlarge m8ine.8xlarge m8ine.large m8ine.xlarge m9g.12xlarge " +
    "m9g.16xlarge m9g.24xlarge m9g.2xlarge m9g.48xlarge m9g.4xlarge m9g.8xlarge m9g.large m9g.medium " +
    "m9g.metal-48xl m9g.xlarge m9gd.12xlarge m9gd.16xlarge m9gd.24xlarge m9gd.2xlarge m9gd.48xlarge " +
    "m9gd.4xlarge m9gd.8xlarge m9gd.large m9gd.medium m9gd.metal-48xl m9gd.xlarge mac-m3ultra.metal " +
    "r8gb.metal-24xl r8gb.metal-48xl r8gn.metal-24xl r8gn.metal-48xl r8ib.12xlarge r8ib.16xlarge " +
    "r8ib.24xlarge r8ib.2xlarge r8ib.32xlarge r8ib.48xlarge r8ib.4xlarge r8ib.8xlarge r8ib.96xlarge " +
    "r8ib.large r8ib.metal-48xl r8ib.metal-96xl r8ib.xlarge r8idb.12xlarge r8idb.16xlarge r8idb.24xlarge " +
    "r8idb.2xlarge r8idb.32xlarge r8idb.48xlarge r8idb.4xlarge r8idb.8xlarge r8idb.96xlarge r8idb.large " +
    "r8idb.metal-48xl r8idb.metal-96xl r8idb.xlarge r8idn.12xlarge r8idn.16xlarge r8idn.24xlarge " +
    "r8idn.2xlarge r8idn.32xlarge r8idn.48xlarge r8idn.4xlarge r8idn.8xlarge r8idn.96xlarge r8idn.large " +
    "r8idn.metal-48xl r8idn.metal-96xl r8idn.xlarge r8in.12xlarge r8in.16xlarge r8in.24xlarge " +
    "r8in.2xlarge r8in.32xlarge r8in.48xlarge r8in.4xlarge r8in.8xlarge r8in.96xlarge r8in.large " +
    "r8in.metal-48xl r8in.metal-96xl r8in.xlarge trn2.3xlarge trn2.48xlarge u-12tb1.metal u-18tb1.metal " +
    "u-24tb1.metal u-6tb1.metal u-9tb1.metal"
  ).split(" "),
);

const ENI_TABLE: ReadonlySet<string> = new Set(ENI_LIMIT_ROWS.flatMap(([, , types]) => types.split(" ")));

/** Whether the controller's table gives `instanceType` a trunk interface; undefined where it lacks the type. */
export function trunkingCompatible(instanceType: string): boolean | undefined {
  if (NO_TRUNKING.has(instanceType)) return false;
  return ENI_TABLE.has(instanceType) && !TRUNKING_UNLISTED.has(instanceType) ? true : undefined;
}
