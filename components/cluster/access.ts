/**
 * Who can reach the Kubernetes API: EKS access entries with access-policy associations, as plain data
 * and the wiring that creates them.
 * https://docs.aws.amazon.com/eks/latest/userguide/access-entries.html
 */
import { createHash } from "node:crypto";
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { PARTITIONS, type Partition, partitionOfRegion } from "./partitions";

export type { Partition } from "./partitions";

/**
 * Access levels and the EKS access policy each grants, cluster-wide
 * (https://docs.aws.amazon.com/eks/latest/userguide/access-policy-permissions.html):
 * - admin: AmazonEKSClusterAdminPolicy, every verb on every resource;
 * - adminView: AmazonEKSAdminViewPolicy, get, list and watch on every resource, Secrets and custom
 *   resources included: what a refresh reads, and nothing it could change;
 * - view: AmazonEKSViewPolicy, read access to most built-in namespaced objects, but not Secrets, RBAC
 *   or custom resources.
 */
export const ACCESS_POLICIES = {
  admin: "AmazonEKSClusterAdminPolicy",
  adminView: "AmazonEKSAdminViewPolicy",
  view: "AmazonEKSViewPolicy",
} as const;
export type AccessLevel = keyof typeof ACCESS_POLICIES;

export interface AccessGrant {
  /** An IAM role or user ARN (not an assumed-role session ARN). */
  principalArn: string;
  level: AccessLevel;
}

/**
 * The one principal with access that no access entry of ours declares: @pulumi/eks 4.x creates every
 * API-auth cluster with `accessConfig.bootstrapClusterCreatorAdminPermissions: true` and ignores changes
 * to it (cluster/cluster.ts in pulumi/pulumi-eks v4.3.0), and EKS cannot change it after creation. So the
 * IAM principal that ran the first `pulumi up` is cluster admin through an access entry EKS made. It is
 * needed: that same `up` installs Calico through the Kubernetes API. Everyone else is listed in
 * `cluster.access`; listing the creator there too fails every update (EKS: "ResourceInUseException: The
 * specified access entry resource is already in use on this cluster", pulumi/pulumi-eks#2373), so
 * stacks/creator.ts refuses it before any resource is registered.
 */
export const BOOTSTRAP_ADMIN = {
  principal: "the IAM principal that ran the cluster's first `pulumi up`",
  level: "admin",
  grantedBy: "EKS bootstrapClusterCreatorAdminPermissions (set by @pulumi/eks, fixed at creation)",
} as const;

/**
 * Everyone who can use the Kubernetes API, as the `clusterAccess` stack output shows it: the creator by
 * its ARN once the stack has recorded it (the `clusterCreator` output, stacks/creator.ts).
 */
export function accessSummary(
  grants: readonly AccessGrant[],
  creator?: string,
): { principal: string; level: AccessLevel; grantedBy: string }[] {
  return [
    {
      principal: creator ?? BOOTSTRAP_ADMIN.principal,
      level: BOOTSTRAP_ADMIN.level,
      grantedBy: BOOTSTRAP_ADMIN.grantedBy,
    },
    ...grants.map((grant) => ({
      principal: grant.principalArn,
      level: grant.level,
      grantedBy: `access entry (cluster.access), ${ACCESS_POLICIES[grant.level]}`,
    })),
  ];
}

/** The partition a region belongs to (partitions.ts); the config's region check refuses any other name. */
export function partitionOf(region: string): Partition {
  const partition = partitionOfRegion(region);
  if (partition === undefined) throw new Error(`${region} is in no AWS partition`);
  return partition;
}

/** The ARN of an EKS access policy in a partition. */
export function accessPolicyArn(partition: Partition, level: AccessLevel): string {
  return `arn:${partition}:eks::aws:cluster-access-policy/${ACCESS_POLICIES[level]}`;
}

// arn:<partition>:iam::<12-digit account>:role|user/<optional path/>name
const IAM_PRINCIPAL_ARN = new RegExp(
  `^arn:(${PARTITIONS.join("|")}):iam::(\\d{12}):(role|user)\\/((?:[\\w+=,.@-]+\\/)*)([\\w+=,.@-]{1,64})$`,
);

export interface ParsedPrincipal {
  partition: Partition;
  accountId: string;
  kind: "role" | "user";
  name: string;
}

/**
 * Splits an IAM role or user ARN, or returns the reason it is not one. A role's path stays in the ARN:
 * access entries take the full ARN (an SSO role's `aws-reserved/sso.amazonaws.com/` path included), unlike
 * the old aws-auth ConfigMap.
 */
export function parsePrincipalArn(arn: string): ParsedPrincipal | { problem: string } {
  if (/^arn:[^:]+:sts::\d*:assumed-role\//.test(arn)) {
    return {
      problem:
        "is an STS assumed-role session ARN; access entries take the role's ARN (arn:<partition>:iam::<account>:role/<name>)",
    };
  }
  const match = IAM_PRINCIPAL_ARN.exec(arn);
  if (match === null) {
    return {
      problem:
        "must be an IAM role or user ARN: arn:<partition>:iam::<12-digit account>:role/<name> or :user/<name>",
    };
  }
  if (match[4].startsWith("aws-service-role/")) {
    // EKS: "The caller is not allowed to modify access entries with a principalArn value of a Service
    // Linked Role" (hashicorp/terraform-provider-aws#36447).
    return { problem: "is a service-linked role, which EKS does not allow in an access entry" };
  }
  return {
    partition: match[1] as Partition,
    accountId: match[2],
    kind: match[3] as "role" | "user",
    name: match[5],
  };
}

/**
 * The IAM principal behind a caller identity (`aws sts get-caller-identity`): an STS assumed-role session
 * ARN (arn:<partition>:sts::<account>:assumed-role/<role>/<session>, the shape GetCallerIdentity returns for a role,
 * https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html) becomes its role's ARN.
 * The session ARN carries no path, so neither does the result: compare it with {@link samePrincipal}.
 * Any other ARN (an IAM user or role, the account root) is returned as it is.
 */
export function callerPrincipalArn(arn: string): string {
  const session = /^arn:([^:]+):sts::(\d{12}):assumed-role\/([^/]+)\/[^/]+$/.exec(arn);
  return session === null ? arn : `arn:${session[1]}:iam::${session[2]}:role/${session[3]}`;
}

/**
 * Whether two ARNs name the same IAM principal, as EKS counts access entries: same partition, account and
 * kind, and the same name ignoring case (IAM names are unique per account and "not distinguished by case",
 * https://docs.aws.amazon.com/IAM/latest/APIReference/API_CreateRole.html) and ignoring the path (a role
 * has one name whatever its path; an assumed-role session ARN drops it). Session ARNs count as their role.
 * ARNs that are not IAM role or user ARNs are the same only when equal.
 */
export function samePrincipal(a: string, b: string): boolean {
  const [left, right] = [parsePrincipalArn(callerPrincipalArn(a)), parsePrincipalArn(callerPrincipalArn(b))];
  if ("problem" in left || "problem" in right) return a === b;
  return (
    left.partition === right.partition &&
    left.accountId === right.accountId &&
    left.kind === right.kind &&
    left.name.toLowerCase() === right.name.toLowerCase()
  );
}

/**
 * The Pulumi resource name of a principal's access entry: readable, stable whatever the order of the
 * list (an index would re-key every later entry when one is removed), and the same for every spelling
 * {@link samePrincipal} takes as one principal (a role's path, the case of its name): EKS keeps one entry
 * per principal, so a re-spelt ARN must replace the entry in place, never add a second beside it.
 */
export function accessResourceName(componentName: string, principalArn: string): string {
  const digest = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 8);
  const parsed = parsePrincipalArn(principalArn);
  // An ARN the schema refuses names no principal: a digest of it as written.
  if ("problem" in parsed) return `${componentName}-access-principal-${digest(principalArn)}`;
  const name = parsed.name.toLowerCase();
  const identity = `${parsed.partition}:${parsed.accountId}:${parsed.kind}:${name}`;
  return `${componentName}-access-${parsed.accountId}-${parsed.kind}-${name.replace(/[^a-z0-9-]/g, "-")}-${digest(identity)}`;
}

/** One access entry and its cluster-scoped policy association per grant. */
export function createAccessEntries(
  componentName: string,
  grants: readonly AccessGrant[],
  shared: {
    clusterName: pulumi.Input<string>;
    partition: Partition;
    tags: Record<string, string>;
    parent: pulumi.Resource;
  },
): aws.eks.AccessEntry[] {
  return grants.map((grant) => {
    const resourceName = accessResourceName(componentName, grant.principalArn);
    // principalArn forces replacement (terraform-provider-aws internal/service/eks/access_entry.go, ForceNew; offline/aws-force-new.ts), and EKS
    // refuses a second entry for a principal (ResourceInUseException): a re-spelt ARN deletes the old
    // entry, with its association, before creating the new one.
    const options = { parent: shared.parent, deleteBeforeReplace: true };
    const entry = new aws.eks.AccessEntry(
      resourceName,
      {
        clusterName: shared.clusterName,
        principalArn: grant.principalArn,
        type: "STANDARD",
        tags: shared.tags,
      },
      options,
    );
    new aws.eks.AccessPolicyAssociation(
      resourceName,
      {
        clusterName: entry.clusterName,
        // From the entry, so the association waits for it and goes before it on delete.
        principalArn: entry.principalArn,
        policyArn: accessPolicyArn(shared.partition, grant.level),
        accessScope: { type: "cluster" },
      },
      options,
    );
    return entry;
  });
}
