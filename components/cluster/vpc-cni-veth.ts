/**
 * The VPC CNI's default host-side veth prefix (`AWS_VPC_K8S_CNI_VETHPREFIX`, amazon-vpc-cni-k8s README):
 * every pod's host interface is `eni…`, and a pod with security groups in standard mode gets it too
 * (pkg/sgpp/utils.go). Felix's workload interface prefix must be the same.
 */
export const VPC_CNI_VETH_PREFIX = "eni";
