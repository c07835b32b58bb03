/**
 * The vpc-cni add-on's tag while its network-policy agent stays on beside Calico
 * (`cluster.existing.networkPolicyAgent: on`, the hand-over's first step): the policy pack
 * (policy/vpc-cni.ts) accepts the agent on that add-on only, and AWS shows the hand-over is under way.
 */
export const HAND_OVER_TAG = { key: "eks-calico/network-policy-agent", value: "hand-over" } as const;
