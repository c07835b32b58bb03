/**
 * EKS-optimized AMI types a managed node group may use, and what follows from each: the CPU
 * architecture its instance types must have, and the EBS device that holds container images and pods.
 * Plain data and functions, no Pulumi.
 *
 * The EKS API's AmiTypes enum (botocore data/eks/2017-11-01/service-2.json, August 2026; the FIPS
 * Bottlerocket NVIDIA types joined it in January 2026, the Windows 2025 ones in February) is what
 * terraform-provider-aws validates `ami_type` against (internal/service/eks/node_group.go
 * `enum.Validate[types.AMITypes]()`), under @pulumi/aws 7.48.0 (published September 2026). Every Linux
 * type of it is offered here; the others are refused with their reason (NOT_OFFERED).
 * https://docs.aws.amazon.com/eks/latest/APIReference/API_Nodegroup.html#AmazonEKS-Type-Nodegroup-amiType
 */

export type Architecture = "x86_64" | "arm64";

export interface AmiTypeFacts {
  readonly architecture: Architecture;
  /**
   * The EBS device of the node's working storage. Amazon Linux 2023 keeps everything on its root volume
   * /dev/xvda; Bottlerocket boots from a small /dev/xvda and keeps images and pods on /dev/xvdb.
   * https://bottlerocket.dev/en/os/latest/#/concepts/bottlerocket-on-aws/ (storage layout)
   */
  readonly dataDevice: "/dev/xvda" | "/dev/xvdb";
  /** Devices the AMI boots from besides the data device (encrypted too, sized by the AMI). */
  readonly otherDevices: readonly string[];
}

const AL2023_X86: AmiTypeFacts = { architecture: "x86_64", dataDevice: "/dev/xvda", otherDevices: [] };
const AL2023_ARM: AmiTypeFacts = { architecture: "arm64", dataDevice: "/dev/xvda", otherDevices: [] };
// The FIPS variants (aws-k8s-1.xx-fips, -nvidia-fips) are builds of the same Bottlerocket images, with the
// same two volumes (https://bottlerocket.dev/en/os/latest/#/version-information/fips-modules/).
const BOTTLEROCKET_X86: AmiTypeFacts = {
  architecture: "x86_64",
  dataDevice: "/dev/xvdb",
  otherDevices: ["/dev/xvda"],
};
const BOTTLEROCKET_ARM: AmiTypeFacts = { ...BOTTLEROCKET_X86, architecture: "arm64" };

export const AMI_TYPES = {
  AL2023_x86_64_STANDARD: AL2023_X86,
  AL2023_ARM_64_STANDARD: AL2023_ARM,
  AL2023_x86_64_NVIDIA: AL2023_X86,
  AL2023_ARM_64_NVIDIA: AL2023_ARM,
  // AWS Inferentia and Trainium (inf*, trn*) instances.
  AL2023_x86_64_NEURON: AL2023_X86,
  BOTTLEROCKET_x86_64: BOTTLEROCKET_X86,
  BOTTLEROCKET_ARM_64: BOTTLEROCKET_ARM,
  BOTTLEROCKET_x86_64_NVIDIA: BOTTLEROCKET_X86,
  BOTTLEROCKET_ARM_64_NVIDIA: BOTTLEROCKET_ARM,
  BOTTLEROCKET_x86_64_FIPS: BOTTLEROCKET_X86,
  BOTTLEROCKET_ARM_64_FIPS: BOTTLEROCKET_ARM,
  BOTTLEROCKET_x86_64_NVIDIA_FIPS: BOTTLEROCKET_X86,
  BOTTLEROCKET_ARM_64_NVIDIA_FIPS: BOTTLEROCKET_ARM,
} as const satisfies Record<string, AmiTypeFacts>;

export type AmiType = keyof typeof AMI_TYPES;
export const AMI_TYPE_NAMES = Object.keys(AMI_TYPES) as [AmiType, ...AmiType[]];

/**
 * The EKS AMI types not offered, each with its reason. Windows: calico-node runs on Linux only. Amazon
 * Linux 2: "Amazon EKS stopped publishing EKS-optimized Amazon Linux 2 (AL2) AMIs on November 26, 2025"
 * and published none for Kubernetes 1.33 and later (awslabs/amazon-eks-ami README, issue #2545). CUSTOM:
 * a launch template with its own AMI, which this program does not build.
 */
export const NOT_OFFERED: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    ["AL2_x86_64", "AL2_x86_64_GPU", "AL2_ARM_64"].map((name) => [
      name,
      "is Amazon Linux 2, whose EKS AMIs stopped on 26 November 2025 (none exist for Kubernetes 1.33 and later): use the AL2023 type of the same architecture",
    ]),
  ),
  ...Object.fromEntries(
    ["CORE", "FULL"].flatMap((edition) =>
      ["2019", "2022", "2025"].map((year) => [
        `WINDOWS_${edition}_${year}_x86_64`,
        "is a Windows AMI: calico-node runs on Linux nodes only",
      ]),
    ),
  ),
  CUSTOM:
    "needs a launch template with its own AMI, which this program does not make: pick an EKS-optimized type",
};

/** The rule an `amiType` value breaks: why one of EKS's other types is not offered, or the offered ones. */
export function amiTypeRule(value: unknown): string {
  const offered = `must be one of ${AMI_TYPE_NAMES.join(", ")}`;
  return typeof value === "string" && Object.hasOwn(NOT_OFFERED, value)
    ? `${NOT_OFFERED[value]} (${offered})`
    : offered;
}

/** Amazon Linux 2023 on x86_64: the AMI EKS itself picks for a managed node group by default. */
export const DEFAULT_AMI_TYPE: AmiType = "AL2023_x86_64_STANDARD";

// family, generation, attributes, size: m7g.large = m / 7 / g / large; c6gn.16xlarge; im4gn.large;
// c8g.metal-48xl.
const INSTANCE_TYPE_PARTS = /^([a-z]+)(\d+)([a-z0-9-]*)\.([a-z0-9-]+)$/;

/**
 * The CPU architecture of an EC2 instance type, from its name: AWS Graviton (arm64) types carry a `g`
 * in their attributes (m7g, c6gn, r8gd, t4g, im4gn, is4gen, g5g, hpc7g), and a1 is the first Graviton.
 * No x86_64 type uses that letter. Undefined for a name that is not family+generation.size.
 * https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html
 */
export function instanceArchitecture(instanceType: string): Architecture | undefined {
  const match = INSTANCE_TYPE_PARTS.exec(instanceType);
  if (match === null) return undefined;
  const [, family, generation, attributes] = match;
  if (family === "a" && generation === "1") return "arm64";
  return attributes.replace(/-.*$/, "").includes("g") ? "arm64" : "x86_64";
}

/** AMI types of one architecture, for messages ("set amiType to one of ..."). */
export function amiTypesFor(architecture: Architecture): AmiType[] {
  return AMI_TYPE_NAMES.filter((name) => AMI_TYPES[name].architecture === architecture);
}

/** One EBS mapping of a launch template, in the shape aws.ec2.LaunchTemplate takes. */
export interface BlockDeviceMapping {
  deviceName: string;
  ebs: {
    volumeType: "gp3";
    encrypted: "true";
    deleteOnTermination: "true";
    volumeSize?: number;
  };
}

/**
 * Encrypted gp3 volumes for a node: the data device sized `diskSizeGiB`, the AMI's other devices at the
 * AMI's own size. Encryption uses the account's default EBS key (aws/ebs) unless the account sets another.
 */
export function nodeBlockDevices(amiType: AmiType, diskSizeGiB: number): BlockDeviceMapping[] {
  const facts: AmiTypeFacts = AMI_TYPES[amiType];
  const ebs = { volumeType: "gp3", encrypted: "true", deleteOnTermination: "true" } as const;
  return [
    ...facts.otherDevices.map((deviceName) => ({ deviceName, ebs: { ...ebs } })),
    { deviceName: facts.dataDevice, ebs: { ...ebs, volumeSize: diskSizeGiB } },
  ];
}
