/** EKS cluster policies: secrets encryption, control-plane logs, endpoint exposure, access entries. */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { TYPES, forEksComponent, isSet, shown, strings } from "./common";
import { coversWholeInternet } from "../components/network/cidr-ranges";

export const eksSecretsEncryption: ResourceValidationPolicy = {
  name: "eks-secrets-encryption",
  description:
    "EKS clusters envelope-encrypt Kubernetes secrets with a KMS key of this stack: eks:index:Cluster sets " +
    "encryptionConfigKeyArn. EKS can add the key later but never change or remove it.",
  enforcementLevel: "mandatory",
  validateResource: forEksComponent(TYPES.eksCluster, "secrets encryption", (props, args, report) => {
    if (!isSet(props, "encryptionConfigKeyArn")) {
      report(
        `Cluster ${args.name} sets no encryptionConfigKeyArn: Kubernetes secrets are not envelope-encrypted ` +
          "with a KMS key you control. Pass a customer-managed key with rotation enabled.",
      );
    }
  }),
};

/** The control-plane logs an incident needs: every API request, the audit trail, and who authenticated. */
export const REQUIRED_LOG_TYPES = ["api", "audit", "authenticator"] as const;

export const eksControlPlaneLogging: ResourceValidationPolicy = {
  name: "eks-control-plane-logging",
  description:
    "EKS clusters send the api, audit and authenticator control-plane logs to CloudWatch " +
    "(enabledClusterLogTypes); without them there is no record of who did what to the cluster.",
  enforcementLevel: "mandatory",
  validateResource: forEksComponent(TYPES.eksCluster, "control-plane logging", (props, args, report) => {
    const enabled = strings(props.enabledClusterLogTypes);
    const missing = REQUIRED_LOG_TYPES.filter((type) => !enabled.includes(type));
    if (missing.length > 0) {
      report(
        `Cluster ${args.name} does not log ${missing.join(", ")} ` +
          `(enabledClusterLogTypes: ${JSON.stringify(enabled)}); add them to enabledClusterLogTypes.`,
      );
    }
  }),
};

/**
 * Which clusters must keep their public API endpoint closed to 0.0.0.0/0: `protected` ones (the stacks that
 * set `protect`, i.e. production) or `always` every cluster.
 */
export type PublicEndpointRestriction = "protected" | "always";
export const DEFAULT_PUBLIC_ENDPOINT_RESTRICTION: PublicEndpointRestriction = "protected";
export interface EndpointExposureConfig {
  restrictPublicEndpoint?: PublicEndpointRestriction;
}

const WORLD = "0.0.0.0/0";

export const eksEndpointExposure: ResourceValidationPolicy = {
  name: "eks-endpoint-exposure",
  description:
    "EKS clusters keep the private API endpoint on, so nodes reach the API inside the VPC. A public endpoint " +
    "open to the whole internet (0.0.0.0/0, or blocks that together cover it) is refused on protected " +
    "clusters (opts.protect), or on every cluster when the " +
    "policy's restrictPublicEndpoint config is `always`: a policy has one enforcement level, so the split " +
    "between a dev cluster and production is config, not an advisory twin that warns on every dev preview.",
  enforcementLevel: "mandatory",
  configSchema: {
    properties: {
      restrictPublicEndpoint: {
        type: "string",
        enum: ["protected", "always"],
        default: DEFAULT_PUBLIC_ENDPOINT_RESTRICTION,
        description:
          "Clusters whose public endpoint must not be open to 0.0.0.0/0: `protected` ones or `always` all.",
      },
    },
  },
  validateResource: forEksComponent(TYPES.eksCluster, "endpoint exposure", (props, args, report) => {
    if (props.endpointPrivateAccess !== true) {
      report(
        `Cluster ${args.name} has the private endpoint off (endpointPrivateAccess: ` +
          `${shown(props.endpointPrivateAccess)}): nodes and in-VPC clients would reach the API ` +
          "through the internet. Set endpointPrivateAccess: true.",
      );
    }
    const restriction =
      args.getConfig<EndpointExposureConfig>().restrictPublicEndpoint ?? DEFAULT_PUBLIC_ENDPOINT_RESTRICTION;
    // EKS turns the public endpoint on, open to 0.0.0.0/0, unless told otherwise.
    const cidrs = strings(props.publicAccessCidrs);
    // By meaning, as the config schema judges it: 0.0.0.0/1 and 128.0.0.0/1 together are 0.0.0.0/0.
    const openToWorld =
      props.endpointPublicAccess !== false && (cidrs.length === 0 || coversWholeInternet(cidrs));
    if (openToWorld && (restriction === "always" || args.opts.protect)) {
      const why =
        restriction === "always" ? "restrictPublicEndpoint is `always`" : "the cluster is protected";
      report(
        `Cluster ${args.name} exposes its public API endpoint to the whole internet (${cidrs.length === 0 ? WORLD : cidrs.join(", ")}) and ${why}. List the CIDRs that ` +
          "may reach it in publicAccessCidrs, or set endpointPublicAccess: false.",
      );
    }
  }),
};

function describeMode(mode: unknown): string {
  return mode === undefined ? "unset (the EKS default keeps the aws-auth ConfigMap)" : shown(mode);
}

export const eksAccessEntries: ResourceValidationPolicy = {
  name: "eks-access-entries-only",
  description:
    "EKS clusters authenticate with access entries only (authenticationMode API) and map no IAM roles or " +
    "users through the aws-auth ConfigMap (roleMappings, userMappings), which anyone able to edit " +
    "kube-system can change.",
  enforcementLevel: "mandatory",
  validateResource: forEksComponent(TYPES.eksCluster, "the authentication mode", (props, args, report) => {
    if (props.authenticationMode !== "API") {
      report(
        `Cluster ${args.name} has authenticationMode ${describeMode(props.authenticationMode)}; set API. ` +
          "EKS changes it one way only: CONFIG_MAP to API_AND_CONFIG_MAP to API.",
      );
    }
    for (const key of ["roleMappings", "userMappings"]) {
      if (isSet(props, key)) {
        report(
          `Cluster ${args.name} sets ${key} (aws-auth ConfigMap entries); grant access with accessEntries.`,
        );
      }
    }
  }),
};
