/**
 * EKS-optimized AMI types a managed node group may use, and what follows from each: the CPU
 * architecture its instance types must have, and the EBS device that holds container images and pods.
 * Plain data and functions, no Pulumi. Windows and Amazon Linux 2 are not offered: calico-node runs on
 * Linux only, and EKS publishes no AL2 AMIs for Kubernetes 1.33 and later.
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

export const AMI_TYPES = {
  AL2023_x86_64_STANDARD: { architecture: "x86_64", dataDevice: "/dev/xvda", otherDevices: [] },
  AL2023_ARM_64_STANDARD: { architecture: "arm64", dataDevice: "/dev/xvda", otherDevices: [] },
  AL2023_x86_64_NVIDIA: { architecture: "x86_64", dataDevice: "/dev/xvda", otherDevices: [] },
  AL2023_ARM_64_NVIDIA: { architecture: "arm64", dataDevice: "/dev/xvda", otherDevices: [] },
  BOTTLEROCKET_x86_64: { architecture: "x86_64", dataDevice: "/dev/xvdb", otherDevices: ["/dev/xvda"] },
  BOTTLEROCKET_ARM_64: { architecture: "arm64", dataDevice: "/dev/xvdb", otherDevices: ["/dev/xvda"] },
  BOTTLEROCKET_x86_64_NVIDIA: {
    architecture: "x86_64",
    dataDevice: "/dev/xvdb",
    otherDevices: ["/dev/xvda"],
  },
  BOTTLEROCKET_ARM_64_NVIDIA: {
    architecture: "arm64",
    dataDevice: "/dev/xvdb",
    otherDevices: ["/dev/xvda"],
  },
} as const satisfies Record<string, AmiTypeFacts>;

export type AmiType = keyof typeof AMI_TYPES;
export const AMI_TYPE_NAMES = Object.keys(AMI_TYPES) as [AmiType, ...AmiType[]];

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
