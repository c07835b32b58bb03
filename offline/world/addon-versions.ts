/**
 * Default EKS add-on versions per Kubernetes version: the version that
 * `aws eks describe-addon-versions --addon-name <name> --kubernetes-version <k8s>` marks with
 * `compatibilities[].defaultVersion: true`, which is what `aws.eks.getAddonVersion({ mostRecent: false })`
 * returns.
 *
 * Source for every value below: floci-io/floci `src/main/resources/eks/addon-versions.json`, stored
 * version at commit 3a120ed9235e1d99178404c6bae06fa6d6329758. That file is generated, not hand-typed, by
 * `tools/aws/regen_eks_addon_versions.py`, which runs the describe-addon-versions call above against
 * us-east-1 for each add-on and Kubernetes version and checks there is exactly one default per pair.
 * The commit date is not visible in the stored index; the file covers Kubernetes 1.28-1.36 and is newer
 * than floci's 2026-08-22 snapshot (which lacks it) and than the EKS user-guide tables in the docs corpus
 * (e.g. those list v1.36.0-eksbuild.14 as the newest kube-proxy for 1.36; this recording has
 * v1.36.0-eksbuild.25 as the default). Treat the table as current to roughly autumn 2026.
 *
 * Caveats:
 * - AWS has moved defaults forward after launch: in this recording 1.31's default vpc-cni is
 *   v1.22.4-eksbuild.3, far newer than 1.31's 2024 launch, although a maintainer said in 2023 that a
 *   default is fixed at launch (aws/amazon-vpc-cni-k8s#2357). So a cluster version's launch-time
 *   defaults were older, and a lookup of the default is not a pin: `cluster.addons.*.version` is.
 * - The default can differ by Region; the recording is from us-east-1.
 * - The EKS user guide pages "Manage kube-proxy", "Manage CoreDNS" and "Assign IPs to Pods with the
 *   Amazon VPC CNI" list the LATEST version per Kubernetes version, not the default; they were used only
 *   to cross-check that each value is an existing, compatible build.
 *
 * Shape, as the sources show it: vpc-cni has one default for all of 1.31-1.36; coredns changes by
 * Kubernetes range (1.31-1.32 v1.11.4, 1.33-1.34 v1.12.4, 1.35 v1.13.2, 1.36 v1.14.6); kube-proxy
 * follows the Kubernetes minor.
 */
export const EKS_ADDON_NAMES = ["vpc-cni", "coredns", "kube-proxy"] as const;
export type EksAddonName = (typeof EKS_ADDON_NAMES)[number];

export const DEFAULT_ADDON_VERSIONS: Readonly<Record<string, Readonly<Record<EksAddonName, string>>>> = {
  // Confirmed: floci-io/floci src/main/resources/eks/addon-versions.json (describe-addon-versions,
  // us-east-1).
  "1.32": {
    "vpc-cni": "v1.22.4-eksbuild.3",
    coredns: "v1.11.4-eksbuild.60",
    "kube-proxy": "v1.32.13-eksbuild.32",
  },
  // Confirmed: same source.
  "1.33": {
    "vpc-cni": "v1.22.4-eksbuild.3",
    coredns: "v1.12.4-eksbuild.38",
    "kube-proxy": "v1.33.10-eksbuild.29",
  },
  // Confirmed: same source.
  "1.34": {
    "vpc-cni": "v1.22.4-eksbuild.3",
    coredns: "v1.12.4-eksbuild.38",
    "kube-proxy": "v1.34.6-eksbuild.29",
  },
  // Confirmed: same source. coredns default is a 1.13 build although 1.14 builds are compatible with 1.35.
  "1.35": {
    "vpc-cni": "v1.22.4-eksbuild.3",
    coredns: "v1.13.2-eksbuild.31",
    "kube-proxy": "v1.35.3-eksbuild.29",
  },
  // Confirmed: same source.
  "1.36": {
    "vpc-cni": "v1.22.4-eksbuild.3",
    coredns: "v1.14.6-eksbuild.4",
    "kube-proxy": "v1.36.0-eksbuild.25",
  },
};
