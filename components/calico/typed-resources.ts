/**
 * The typed Pulumi resources for rendered Calico objects, shared by the manifest and the operator install:
 * a typed resource per kind (createObject), the awaited workloads' timeouts, the takeover step
 * (./takeover) for the objects about to be applied, and the CRDs it feeds, where a CRD whose spec this
 * program keeps open is applied with the stricter schema the step found in the cluster. The objects
 * themselves are rendered as plain data by ./manifest.ts (shapes in ./object-shapes.ts); the workloads'
 * own resources, with their options, are in ./workloads.ts.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ClusterAccess } from "../cluster/provider";
import { hasOpenSpec, withSchema } from "./crds";
import { DEFAULT_CALICO_VERSION, supportedMinorOf } from "./defaults";
import { type CalicoObjectGroups, childResourceName } from "./manifest";
import { CalicoTakeover } from "./takeover";
import type { CalicoObject, CustomResourceDefinition } from "./object-shapes";

type Options = pulumi.CustomResourceOptions;

/** The awaited workloads fail `pulumi up` after this long instead of the provider's default. */
export function readinessTimeouts(minutes: number): pulumi.CustomTimeouts {
  if (!Number.isInteger(minutes) || minutes < 1) {
    throw new Error(`readinessTimeoutMinutes must be a whole number of at least 1, got ${String(minutes)}`);
  }
  return { create: `${minutes}m`, update: `${minutes}m` };
}

/** A typed resource for an object of a kind with no options of its own. */
export function createObject(
  resourceName: string,
  object: CalicoObject,
  opts: Options,
): pulumi.CustomResource {
  switch (object.kind) {
    case "ServiceAccount":
      return new k8s.core.v1.ServiceAccount(resourceName, object, opts);
    case "ClusterRole":
      return new k8s.rbac.v1.ClusterRole(resourceName, object, opts);
    case "ClusterRoleBinding":
      return new k8s.rbac.v1.ClusterRoleBinding(resourceName, object, opts);
    case "Role":
      return new k8s.rbac.v1.Role(resourceName, object, opts);
    case "RoleBinding":
      return new k8s.rbac.v1.RoleBinding(resourceName, object, opts);
    case "ConfigMap":
      return new k8s.core.v1.ConfigMap(resourceName, object, opts);
    case "Deployment":
      return new k8s.apps.v1.Deployment(resourceName, object, opts);
    default:
      throw new Error(`no typed resource wired for ${object.kind} ${object.metadata.name}`);
  }
}

/** The takeover step, for the objects about to be applied that may exist. */
export function takeoverOf(
  name: string,
  opts: pulumi.CustomResourceOptions,
  args: { access: ClusterAccess; adopt?: boolean; version?: string },
  objects: CalicoObject[],
  crds: readonly CustomResourceDefinition[],
): CalicoTakeover {
  const refs = objects.map(({ apiVersion, kind, metadata }) => ({
    apiVersion,
    kind,
    name: metadata.name,
    ...("namespace" in metadata && metadata.namespace ? { namespace: metadata.namespace } : {}),
  }));
  const openSchemas = crds
    .filter(hasOpenSpec)
    .map((crd) => ({ name: crd.metadata.name, version: crd.spec.versions[0].name }));
  return new CalicoTakeover(
    `${name}-takeover`,
    {
      kubeconfig: args.access.kubeconfig,
      context: args.access.context,
      adopt: args.adopt ?? false,
      objects: refs,
      openSchemas,
      calicoLine: supportedMinorOf(args.version ?? DEFAULT_CALICO_VERSION),
    },
    // It needs only the cluster, which its kubeconfig comes from, and the checks in `opts`.
    opts,
  );
}

/**
 * CRDs are retained on delete: deleting one deletes every object of its kind, i.e. all Calico policy. A CRD
 * whose spec this program keeps open is applied with the stricter schema the cluster has, when the
 * takeover step found one (takeover/schemas.ts).
 */
export function createCrds(
  name: string,
  crds: CalicoObjectGroups["crds"],
  opts: pulumi.CustomResourceOptions,
  kept: pulumi.Output<Record<string, Record<string, unknown>>>,
) {
  return crds.map((crd) => {
    // Only the versions wait for the step: pulumi-kubernetes' check registers every CRD by its
    // spec.group and spec.names.kind, and fails a preview where those are unknown ("spec.group accessor
    // error ... resource.Computed": provider/pkg/provider/provider.go Check, clients/cache.go AddCRD).
    const spec = hasOpenSpec(crd)
      ? {
          ...crd.spec,
          versions: kept.apply((schemas) => withSchema(crd.spec, schemas[crd.metadata.name]).versions),
        }
      : crd.spec;
    return new k8s.apiextensions.v1.CustomResourceDefinition(
      childResourceName(name, crd),
      { ...crd, spec },
      { ...opts, retainOnDelete: true },
    );
  });
}
