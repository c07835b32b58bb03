/**
 * What the `calico` output reports, read from the cluster in every `pulumi up` once calico-node (or the
 * operator's Installation) is applied: the calico-node DaemonSet's status, Typha's Deployment and, with the
 * operator, TigeraStatus `calico`. A Kubernetes resource's outputs are what the provider recorded at its
 * last change: an `up` that leaves calico-node as it is would report the counts of weeks ago, before
 * nodes joined or calico-node started failing on them. A read resource (`DaemonSet.get`) is external in
 * the state, and `pulumi refresh` compares an external resource's outputs (pulumi/pulumi v3.248.0
 * pkg/resource/deploy/step.go RefreshStep.ResultOp): counts that moved since the update are a change, and
 * `pulumi refresh --expect-no-changes` fails. So the program reads the objects itself, through the
 * Kubernetes API client of ../kubernetes/client.ts, and registers nothing: the state holds no read.
 * ./readiness.ts computes the output's fields from what this reads.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ClusterAccess } from "../cluster/provider";
import { type Credentials, credentialsOf, kubeGetOrMissing } from "../kubernetes/client";
import { cleanupPodsPath } from "./felix-cleanup/requests";
import type { CalicoStatus, DaemonSetRollout, TigeraStatus } from "./readiness";

/** A namespaced object by name. */
export interface ObjectRef {
  readonly namespace: string;
  readonly name: string;
}

/** Which objects report Calico's state. */
export interface StatusSources {
  readonly calicoNode: ObjectRef;
  readonly typha: ObjectRef;
  /** The TigeraStatus to read (cluster-scoped, operator install mode only). */
  readonly tigeraStatus?: string;
  /** Where the Felix cleanup's pods would run: calico-node's namespace, or the operator's cleanup's. */
  readonly cleanupNamespace: string;
}

/** The DaemonSet's fields read: the generation and the status kubectl's rollout rule reads. */
interface LiveDaemonSet {
  metadata?: { generation?: number };
  status?: Omit<DaemonSetRollout, "generation">;
}

/** The Deployment's fields read, for kubectl's rollout rule (readiness.ts allReplicasReady). */
interface LiveDeployment {
  metadata?: { generation?: number };
  spec?: { replicas?: number };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    conditions?: { type?: string; reason?: string }[];
  };
}

const apps = (kind: string, ref: ObjectRef) =>
  `/apis/apps/v1/namespaces/${ref.namespace}/${kind}/${ref.name}`;

/**
 * One GET, its failure named. A 404 from an API server is an answer (kubeGetOrMissing: undefined), and the
 * outputs report what it means, no pods; any other failure is not, and ends the read.
 */
async function read<T>(credentials: Credentials, what: string, path: string): Promise<T | undefined> {
  try {
    return await kubeGetOrMissing<T>(credentials, path);
  } catch (error) {
    throw new Error(`could not read ${what} (GET ${path}): ${errorText(error)}`, { cause: error });
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Reads the objects of `sources` with `credentials`; rejects, naming the object, if one cannot be read. */
export async function readCalicoStatus(
  credentials: Credentials,
  sources: StatusSources,
): Promise<CalicoStatus> {
  const cleanupPods = cleanupPodsPath(sources.cleanupNamespace);
  const [node, typha, tigera, cleanup] = await Promise.all([
    read<LiveDaemonSet>(
      credentials,
      `the calico-node DaemonSet ${sources.calicoNode.namespace}/${sources.calicoNode.name}`,
      apps("daemonsets", sources.calicoNode),
    ),
    read<LiveDeployment>(
      credentials,
      `Typha's Deployment ${sources.typha.namespace}/${sources.typha.name}`,
      apps("deployments", sources.typha),
    ),
    sources.tigeraStatus === undefined
      ? undefined
      : read<TigeraStatus>(
          credentials,
          `TigeraStatus ${sources.tigeraStatus}`,
          `/apis/operator.tigera.io/v1/tigerastatuses/${sources.tigeraStatus}`,
        ),
    read<{ items?: unknown[] }>(
      credentials,
      `the Felix cleanup's pods in ${sources.cleanupNamespace}`,
      cleanupPods,
    ),
  ]);
  return {
    calicoNode: node === undefined ? undefined : { ...node.status, generation: node.metadata?.generation },
    typha: typha === undefined ? undefined : deploymentRollout(typha),
    ...(sources.tigeraStatus === undefined ? {} : { tigeraStatus: tigera?.status }),
    cleanupPods: cleanup?.items?.length ?? 0,
  };
}

function deploymentRollout(deployment: LiveDeployment): NonNullable<CalicoStatus["typha"]> {
  const status = deployment.status ?? {};
  return {
    replicas: deployment.spec?.replicas,
    generation: deployment.metadata?.generation,
    observedGeneration: status.observedGeneration,
    statusReplicas: status.replicas,
    updatedReplicas: status.updatedReplicas,
    readyReplicas: status.readyReplicas,
    availableReplicas: status.availableReplicas,
    progressingReason: status.conditions?.find((c) => c.type === "Progressing")?.reason,
  };
}

/**
 * Calico's state as the cluster reports it once `after` resolves: in `pulumi up`, when the resource that
 * `after` is an output of has been applied (or found unchanged). Unknown in a preview, and whenever
 * `after` is (the offline engine keeps a Kubernetes object's status unknown, so it never reads).
 *
 * A failed read fails the `up`, naming what could not be read: the outputs claim to be the cluster's
 * state, and zeros, or the last update's counts, would claim a state nobody saw. What the update applied
 * stays applied, so the next `up` has nothing left to change and reads again.
 */
export function liveCalicoStatus(
  access: ClusterAccess,
  after: pulumi.Output<unknown>,
  sources: StatusSources,
): pulumi.Output<CalicoStatus> {
  const status = pulumi
    .all([after, access.kubeconfig, access.context])
    .apply(([, kubeconfig, context]) =>
      pulumi.runtime.isDryRun()
        ? (pulumi.output(pulumi.unknown) as pulumi.Output<CalicoStatus>)
        : pulumi.output(readOrExplain(kubeconfig, context, sources)),
    );
  // The kubeconfig is secret, which would make every count secret; they are not ("[secret]" in
  // `pulumi stack output calico` would hide them for nothing).
  return pulumi.unsecret(status);
}

async function readOrExplain(
  kubeconfig: string,
  context: string | undefined,
  sources: StatusSources,
): Promise<CalicoStatus> {
  try {
    let credentials: Credentials;
    try {
      credentials = credentialsOf(kubeconfig, context);
    } catch (error) {
      throw new Error(`could not take credentials from the kubeconfig: ${errorText(error)}`, {
        cause: error,
      });
    }
    return await readCalicoStatus(credentials, sources);
  } catch (error) {
    throw new Error(
      `the calico output's readiness fields are read from the cluster, and ${errorText(error)}; ` +
        "run pulumi up again once the cluster answers",
      { cause: error },
    );
  }
}
