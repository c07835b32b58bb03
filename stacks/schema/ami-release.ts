/**
 * Cross-key rule for `nodeGroups[].amiReleaseVersion`: which release of the EKS-optimized AMI a node group
 * runs. Unset, the program sends EKS no release: EKS picks the newest for the group's Kubernetes version
 * at creation and on every `version` change, and keeps it in between. A pin, or `latest` (the release AWS
 * publishes as the newest, read from its public SSM parameter by stacks/ami-releases.ts), is sent as the
 * node group's `releaseVersion`; a new value rolls every node of the group (UpdateNodegroupVersion).
 */
import type { z } from "zod";
import { AMI_TYPES, type AmiType, DEFAULT_AMI_TYPE } from "../../components/cluster/ami-types";
import { clusterSchema } from "./cluster";
import { isRecord } from "./records";

/** The value that follows the newest release AWS publishes for the group's AMI type and version. */
export const LATEST_RELEASE = "latest";

/**
 * Amazon Linux AMIs "are versioned by Kubernetes version and the release date of the AMI":
 * `k8s_major_version.k8s_minor_version.k8s_patch_version-release_date`, such as 1.35.3-20251120 (EKS User
 * Guide, "Retrieve Amazon Linux AMI version information", eks-linux-ami-versions.html; the dates are the
 * vYYYYMMDD of awslabs/amazon-eks-ami's releases).
 */
const AL2023_RELEASE = /^(\d+)\.(\d+)\.(\d+)-(\d{8})$/;

/**
 * Bottlerocket AMIs are versioned by Bottlerocket release and build commit, `1.0.1-dafe3b16`
 * (bottlerocket-os/bottlerocket PUBLISHING-AWS.md: the `{image_version}` of its SSM parameters), which
 * says nothing of the Kubernetes version: that is in the variant (`aws-k8s-1.35`), chosen by EKS from the
 * group's `version`. So a Bottlerocket pin is checked for its shape only.
 */
const BOTTLEROCKET_RELEASE = /^\d+\.\d+\.\d+-[0-9a-f]+$/;

type Family = "al2023" | "bottlerocket";

function familyOf(amiType: AmiType): Family {
  return amiType.startsWith("AL2023_") ? "al2023" : "bottlerocket";
}

/**
 * The public SSM parameter that holds the newest release of an AMI type for a Kubernetes version, or why
 * there is none to read.
 * - AL2023: `/aws/service/eks/optimized-ami/<k8s>/amazon-linux-2023/<x86_64|arm64>/<standard|nvidia|neuron>/
 *   recommended/...` (EKS User Guide, "Retrieve recommended Amazon Linux AMI IDs", retrieve-ami-id.html),
 *   whose `release_version` is the EKS release (the `recommended` parameter's JSON holds `image_id` and
 *   `release_version`: Systems Manager User Guide, parameter-store-public-parameters-eks.html).
 * - Bottlerocket: `/aws/service/bottlerocket/aws-k8s-<k8s>[-nvidia|-fips]/<x86_64|arm64>/latest/...` (EKS
 *   User Guide, retrieve-ami-id-bottlerocket.html), whose `image_version` is the release
 *   (bottlerocket-os/bottlerocket tools/pubsys/policies/ssm/defaults.toml). The guide names one flavor at
 *   a time, so the NVIDIA FIPS types have no parameter it documents.
 * terraform-aws-modules/terraform-aws-eks modules/eks-managed-node-group/main.tf (b6ab9623,
 * `ssm_ami_type_to_ssm_param`) reads the same parameters as `release_version`.
 */
export function latestReleaseParameter(
  amiType: AmiType,
  kubernetesVersion: string,
): { name: string } | { refusal: string } {
  const arch = AMI_TYPES[amiType].architecture;
  if (familyOf(amiType) === "al2023") {
    const flavor = amiType.endsWith("_NVIDIA")
      ? "nvidia"
      : amiType.endsWith("_NEURON")
        ? "neuron"
        : "standard";
    return {
      name: `/aws/service/eks/optimized-ami/${kubernetesVersion}/amazon-linux-2023/${arch}/${flavor}/recommended/release_version`,
    };
  }
  if (amiType.endsWith("_NVIDIA_FIPS")) {
    return {
      refusal: `cannot be "${LATEST_RELEASE}" for amiType ${amiType}: the EKS User Guide names no public SSM parameter for the NVIDIA FIPS Bottlerocket variants; pin a release (aws eks describe-nodegroup shows the one a group runs)`,
    };
  }
  const flavor = amiType.endsWith("_NVIDIA") ? "-nvidia" : amiType.endsWith("_FIPS") ? "-fips" : "";
  return {
    name: `/aws/service/bottlerocket/aws-k8s-${kubernetesVersion}${flavor}/${arch}/latest/image_version`,
  };
}

/**
 * What is wrong with a group's `amiReleaseVersion` for its AMI type and the cluster's Kubernetes version,
 * or undefined. A release newer than any the program knows is never refused: no table of releases is kept.
 */
export function amiReleaseProblem(
  value: string,
  amiType: AmiType,
  kubernetesVersion: string | undefined,
): string | undefined {
  if (value === LATEST_RELEASE) {
    if (kubernetesVersion === undefined) return undefined;
    const parameter = latestReleaseParameter(amiType, kubernetesVersion);
    return "refusal" in parameter ? parameter.refusal : undefined;
  }
  if (familyOf(amiType) === "bottlerocket") {
    return BOTTLEROCKET_RELEASE.test(value)
      ? undefined
      : `must be "${LATEST_RELEASE}" or a Bottlerocket release such as 1.55.0-d93bb1b1 (<Bottlerocket version>-<build commit>), the release_version aws eks describe-nodegroup shows for amiType ${amiType}`;
  }
  const match = AL2023_RELEASE.exec(value);
  if (match === null) {
    return `must be "${LATEST_RELEASE}" or an Amazon Linux 2023 EKS AMI release such as 1.35.3-20251120 (<Kubernetes version>-<release date>), for amiType ${amiType}`;
  }
  const minor = `${match[1]}.${match[2]}`;
  // UpdateNodegroupVersion and CreateNodegroup take the release "for the node group's Kubernetes version"
  // (EKS API reference, releaseVersion), and the program gives every group cluster.version.
  if (kubernetesVersion !== undefined && minor !== kubernetesVersion) {
    return `is a release for Kubernetes ${minor}, but cluster.version is ${kubernetesVersion}: a node group runs the AMI of its own Kubernetes version; pin a ${kubernetesVersion}.x release (change it in the same pull request as cluster.version), or use "${LATEST_RELEASE}", or remove it`;
  }
  return undefined;
}

/** Every group's `amiReleaseVersion` against its AMI type and `cluster.version`, each problem at its key. */
export function checkAmiReleases(config: Record<string, unknown>, ctx: z.core.$RefinementCtx): void {
  const groups = config.nodeGroups;
  if (!Array.isArray(groups)) return;
  const cluster = isRecord(config.cluster) ? config.cluster : {};
  // A version the cluster schema refuses is told there; the minors are checked against a valid one only.
  const parsed = clusterSchema.shape.version.safeParse(cluster.version);
  const version = parsed.success && cluster.version !== undefined ? parsed.data : undefined;
  groups.forEach((group: unknown, index) => {
    if (!isRecord(group) || typeof group.amiReleaseVersion !== "string") return;
    const amiType = group.amiType ?? DEFAULT_AMI_TYPE;
    if (typeof amiType !== "string" || !Object.hasOwn(AMI_TYPES, amiType)) return;
    const problem = amiReleaseProblem(group.amiReleaseVersion, amiType as AmiType, version);
    if (problem === undefined) return;
    ctx.addIssue({
      code: "custom",
      path: ["nodeGroups", index, "amiReleaseVersion"],
      input: group.amiReleaseVersion,
      message: problem,
    });
  });
}
