/**
 * vCPUs and memory of the EC2 instance types a local node can be shaped as, and what the kubelet of an
 * EKS AMI keeps back from them, so a simulated node offers the CPU, memory and pods a real one does.
 *
 * Sizes: EC2 "Instance type specifications" (docs.aws.amazon.com/ec2/latest/instancetypes): within the
 * general-purpose (m), compute (c) and memory (r) families of the 5th to 8th generations, a size has the
 * vCPUs its name states (components/cluster/instance-sizes.ts) and memory is 4, 2 or 8 GiB per vCPU; the
 * burstable t3/t3a/t4g have 4 GiB per vCPU from large up, and 2 vCPUs below. A type outside these rules
 * is refused rather than guessed.
 */
import { vcpusByName } from "../components/cluster/instance-sizes";
import { nodeAddressDemand } from "../components/network/pod-addresses";

/** GiB of memory per vCPU by family letter. */
const GIB_PER_VCPU: Readonly<Record<string, number>> = { m: 4, c: 2, r: 8, t: 4 };

/** Burstable sizes below large: GiB, with 2 vCPUs. */
const SMALL_BURSTABLE: Readonly<Record<string, number>> = { micro: 1, small: 2, medium: 4 };

export interface InstanceShape {
  readonly vcpus: number;
  readonly memoryMiB: number;
}

/** vCPUs and memory of an instance type, or undefined for a type the rules above do not cover. */
export function instanceShape(instanceType: string): InstanceShape | undefined {
  const match = /^([mcrt])([0-9])([a-z-]*)\.([0-9]*x?[a-z]+)$/.exec(instanceType);
  if (match === null) return undefined;
  const [, family, generation, , size] = match;
  const burstable = family === "t";
  if (!(burstable ? ["3", "4"] : ["5", "6", "7", "8"]).includes(generation)) return undefined;
  const small = burstable ? SMALL_BURSTABLE[size] : undefined;
  if (small !== undefined) return { vcpus: 2, memoryMiB: small * 1024 };
  const vcpus = vcpusByName(size);
  return vcpus === undefined ? undefined : { vcpus, memoryMiB: vcpus * GIB_PER_VCPU[family] * 1024 };
}

/**
 * CPU the kubelet reserves, in millicores: 6% of the first core, 1% of the second, 0.5% of the next two,
 * 0.25% of the rest (amazon-eks-ami `get_cpu_millicores_to_reserve`, kept by AL2023's nodeadm).
 */
export function reservedMillicores(vcpus: number): number {
  const steps: [number, number][] = [
    [1, 60],
    [1, 10],
    [2, 5],
    [Infinity, 2.5],
  ];
  let left = vcpus;
  let reserved = 0;
  for (const [cores, perCore] of steps) {
    const used = Math.min(left, cores);
    reserved += used * perCore;
    left -= used;
  }
  return Math.round(reserved);
}

/**
 * Memory the kubelet reserves, in MiB: 255 MiB plus 11 MiB per pod the node may run (amazon-eks-ami
 * `get_memory_mebibytes_to_reserve`), plus the 100 MiB hard eviction threshold.
 */
export function reservedMemoryMiB(maxPods: number): number {
  return 255 + 11 * maxPods + 100;
}

/** What a node of this instance type reports: capacity and allocatable cpu, memory and pods. */
export function nodeResources(instanceType: string): {
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
} {
  const shape = instanceShape(instanceType);
  const demand = nodeAddressDemand(instanceType);
  // The kubelet's max pods on a managed node: the VPC CNI's, capped by EKS (pod-addresses.ts).
  const pods = demand?.maxPods;
  if (shape === undefined || pods === undefined) {
    throw new Error(
      `instance type ${instanceType}: its vCPUs, memory or pod limit are not in local-cluster/instance-types.ts or the ENI table`,
    );
  }
  return {
    capacity: { cpu: String(shape.vcpus), memory: `${shape.memoryMiB}Mi`, pods: String(pods) },
    allocatable: {
      cpu: `${shape.vcpus * 1000 - reservedMillicores(shape.vcpus)}m`,
      memory: `${shape.memoryMiB - reservedMemoryMiB(pods)}Mi`,
      pods: String(pods),
    },
  };
}
