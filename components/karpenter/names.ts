/** The controller's service account: the Pod Identity association and the controller's objects name it. */
export const KARPENTER_SERVICE_ACCOUNT = { namespace: "kube-system", name: "karpenter" } as const;
