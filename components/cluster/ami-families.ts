/**
 * Which instance families each EKS AMI type boots, beyond its CPU architecture (ami-types.ts): the
 * accelerated AMIs only on the families with their accelerator, the standard ones not on the accelerated
 * families, Amazon Linux 2023 on Arm only from Graviton2 on. Data, one row per statement of the EKS User
 * Guide, its source in the row; {@link amiFamilyProblem} applies them.
 */
import { AMI_TYPE_NAMES, type AmiType } from "./ami-types";

// The table of supported GPU instance types per accelerated AMI variant:
// https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html
const ACCELERATED_TABLE = 'EKS User Guide, "Use EKS-optimized accelerated AMIs for GPU instances"';
// The criteria under "Amazon EC2 instance types":
// https://docs.aws.amazon.com/eks/latest/userguide/choosing-instance-type.html
const CHOOSING = 'EKS User Guide, "Choose an optimal Amazon EC2 node instance type"';

/** One row of the accelerated table: an AMI variant, the EKS AMI types that boot it, its families. */
export interface AcceleratedVariant {
  readonly variant: string;
  readonly accelerator: "NVIDIA GPU" | "AWS Neuron";
  readonly amiTypes: readonly AmiType[];
  readonly families: readonly string[];
  readonly source: string;
}

const NVIDIA_X86 = "p6-b300 p6-b200 p5 p5e p5en p4d p4de p3 p3dn g7e gr6 g6 g6e g6f gr6f g5 g4dn".split(" ");
const NVIDIA_ARM = "p6e-gb200 p6e-gb300 g5g".split(" ");
const NEURON = "inf1 inf2 trn1 trn2".split(" ");

/**
 * trn1n.32xlarge is a Trn1 size: the same 16 Trainium chips as trn1.32xlarge, with twice the network
 * bandwidth (AWS Neuron documentation, "AWS Trn1/Trn1n Architecture",
 * https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/arch/neuron-hardware/trn1-arch.html).
 */
const TRN1_SIZES = ["trn1n"];

/**
 * The table's rows. The Bottlerocket FIPS types are builds of the same variants (ami-types.ts), so they
 * share their rows; Bottlerocket's standard variant (aws-k8s) is the one the table lists for Neuron.
 */
export const ACCELERATED_VARIANTS: readonly AcceleratedVariant[] = [
  {
    variant: "AL2023 x86_64 NVIDIA",
    accelerator: "NVIDIA GPU",
    amiTypes: ["AL2023_x86_64_NVIDIA"],
    families: NVIDIA_X86,
    source: ACCELERATED_TABLE,
  },
  {
    variant: "AL2023 ARM NVIDIA",
    accelerator: "NVIDIA GPU",
    amiTypes: ["AL2023_ARM_64_NVIDIA"],
    families: NVIDIA_ARM,
    source: ACCELERATED_TABLE,
  },
  {
    variant: "AL2023 x86_64 Neuron",
    accelerator: "AWS Neuron",
    amiTypes: ["AL2023_x86_64_NEURON"],
    families: [...NEURON, ...TRN1_SIZES],
    source: ACCELERATED_TABLE,
  },
  {
    variant: "Bottlerocket x86_64 aws-k8s-nvidia",
    accelerator: "NVIDIA GPU",
    amiTypes: ["BOTTLEROCKET_x86_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA_FIPS"],
    families: NVIDIA_X86,
    source: ACCELERATED_TABLE,
  },
  {
    variant: "Bottlerocket aarch64/arm64 aws-k8s-nvidia",
    accelerator: "NVIDIA GPU",
    amiTypes: ["BOTTLEROCKET_ARM_64_NVIDIA", "BOTTLEROCKET_ARM_64_NVIDIA_FIPS"],
    families: ["g5g"],
    source: ACCELERATED_TABLE,
  },
  {
    variant: "Bottlerocket x86_64 aws-k8s",
    accelerator: "AWS Neuron",
    amiTypes: ["BOTTLEROCKET_x86_64", "BOTTLEROCKET_x86_64_FIPS"],
    families: [...NEURON, ...TRN1_SIZES],
    source: ACCELERATED_TABLE,
  },
];

/** Families named by a statement of the EKS User Guide, and where it says so. */
export interface FamilyRule {
  readonly families: readonly string[];
  readonly source: string;
}

/** AMI types that exist for an accelerator: they boot only the families of their rows. */
export const ACCELERATED_AMI_TYPES: readonly AmiType[] = AMI_TYPE_NAMES.filter((name) =>
  /_(NVIDIA|NEURON)(_FIPS)?$/.test(name),
);

/**
 * "Arm and non-accelerated Amazon EKS AMIs don't support the g3, g4, inf, and p families." A name is a
 * series (inf, p) or a series and generation (g3, g4) of EC2's instance-type names.
 */
export const NOT_FOR_STANDARD_AMIS: FamilyRule = { families: ["g3", "g4", "inf", "p"], source: CHOOSING };

/** "Accelerated Amazon EKS AMIs don't support the a, c, hpc, m, and t families." */
export const NOT_FOR_ACCELERATED_AMIS: FamilyRule = {
  families: ["a", "c", "hpc", "m", "t"],
  source: CHOOSING,
};

/**
 * "For Arm-based instances, Amazon Linux 2023 (AL2023) only supports instance types that use Graviton2 or
 * later processors. AL2023 doesn't support A1 instances." a1 is the only first-generation Graviton family.
 */
export const GRAVITON1: FamilyRule & { amiTypes: readonly AmiType[] } = {
  families: ["a1"],
  amiTypes: ["AL2023_ARM_64_STANDARD", "AL2023_ARM_64_NVIDIA"],
  source: CHOOSING,
};

/** The family of an instance type: what precedes the size (p4de.24xlarge: p4de; p6-b200.48xlarge: p6-b200). */
export function instanceFamily(instanceType: string): string {
  const dot = instanceType.indexOf(".");
  return dot === -1 ? instanceType : instanceType.slice(0, dot);
}

/** Whether a family is named by a series (p), a series and generation (g4) or in full (g4dn). */
export function familyNamedBy(family: string, name: string): boolean {
  const match = /^([a-z]+)(\d*)/.exec(family);
  return family === name || (match !== null && (match[1] === name || match[1] + match[2] === name));
}

/** The rule an AMI type breaks on an instance type's family, or undefined when it boots it. */
export function amiFamilyProblem(amiType: AmiType, instanceType: string): string | undefined {
  const family = instanceFamily(instanceType);
  const rows = ACCELERATED_VARIANTS.filter((row) => row.amiTypes.includes(amiType));
  if (rows.some((row) => row.families.includes(family))) return undefined;
  if (ACCELERATED_AMI_TYPES.includes(amiType)) {
    const row = rows[0];
    return `is not a family the ${row.variant} AMI (${row.accelerator}) supports: it supports ${row.families.join(", ")} (${row.source})`;
  }
  if (GRAVITON1.amiTypes.includes(amiType) && GRAVITON1.families.includes(family)) {
    return `is a first-generation Graviton family, which Amazon Linux 2023 does not support: it needs Graviton2 or later (${GRAVITON1.source})`;
  }
  if (NOT_FOR_STANDARD_AMIS.families.some((name) => familyNamedBy(family, name))) {
    return `is an accelerated family, which the standard ${amiType} AMI does not support: EKS's non-accelerated AMIs support none of the ${NOT_FOR_STANDARD_AMIS.families.join(", ")} families (${NOT_FOR_STANDARD_AMIS.source})`;
  }
  return undefined;
}
