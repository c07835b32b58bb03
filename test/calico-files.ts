/**
 * Reading calico.yaml and calico-tls.sh back as kubectl and a reader would: the documents, the objects the
 * script creates and the openssl configs it writes, and the files the workloads' env names through their
 * mounts. Shared by test/calico-yaml.test.ts.
 */
import * as assert from "node:assert/strict";
import YAML from "yaml";

/** The kinds calico.yaml may hold: served by every API server, none a custom resource. */
export const BUILT_IN = [
  "v1 Namespace",
  "apiextensions.k8s.io/v1 CustomResourceDefinition",
  "v1 ServiceAccount",
  "rbac.authorization.k8s.io/v1 ClusterRole",
  "rbac.authorization.k8s.io/v1 ClusterRoleBinding",
  "rbac.authorization.k8s.io/v1 Role",
  "rbac.authorization.k8s.io/v1 RoleBinding",
  "v1 ConfigMap",
  "v1 Service",
  "policy/v1 PodDisruptionBudget",
  "apps/v1 Deployment",
  "apps/v1 DaemonSet",
  "networking.k8s.io/v1 NetworkPolicy",
  "v1 Pod",
  "batch/v1 Job",
  "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy",
  "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding",
];

export interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    suspend?: boolean;
    template?: { metadata?: { annotations?: Record<string, string> }; spec?: PodSpec };
  } & Partial<PodSpec>;
}
export interface PodSpec {
  containers: {
    env?: { name: string; value?: string }[];
    volumeMounts?: { name: string; mountPath: string }[];
  }[];
  volumes?: { name: string; configMap?: { name: string }; secret?: { secretName: string } }[];
}

export function docs(yaml: string): Doc[] {
  return YAML.parseAllDocuments(yaml)
    .map((d) => d.toJS() as Doc | null)
    .filter((d): d is Doc => d !== null);
}

/** An object calico-tls.sh creates, read back from its `kubectl create` line. */
export interface Created {
  kind: "Secret" | "ConfigMap";
  name: string;
  namespace: string;
  type?: string;
  /** Key in the object to the file in DIR it is made from. */
  files: Record<string, string>;
  labels: Record<string, string>;
}

export function createdBy(script: string): Created[] {
  const created = [
    ...script.matchAll(/^kubectl create (secret generic|configmap) (\S+) --namespace (\S+)(.*)$/gm),
  ];
  return created.map(([, resource, name, namespace, rest]) => {
    const labelLine = new RegExp(`^kubectl label \\S+ ${name} --namespace ${namespace} (.*)$`, "m").exec(
      script,
    );
    return {
      kind: resource === "configmap" ? "ConfigMap" : "Secret",
      name,
      namespace,
      ...(/--type=(\S+)/.exec(rest) ? { type: /--type=(\S+)/.exec(rest)![1] } : {}),
      files: Object.fromEntries(
        [...rest.matchAll(/--from-file=([^=]+)="\$dir\/([^"]+)"/g)].map((m) => [m[1], m[2]]),
      ),
      labels: Object.fromEntries(
        (labelLine?.[1].split(" ") ?? []).map((l) => l.split("=") as [string, string]),
      ),
    };
  });
}

/** Each openssl config the script writes, by file name: its `key = value` lines. */
export function configs(script: string): Map<string, Record<string, string>> {
  const found = [...script.matchAll(/^cat > (\S+)\.cnf <<'EOF'\n([\s\S]*?)\nEOF$/gm)];
  return new Map(
    found.map(([, name, body]) => [
      name,
      Object.fromEntries(
        body
          .split("\n")
          .filter((l) => l.includes(" = "))
          .map((l) => l.split(" = ") as [string, string]),
      ),
    ]),
  );
}

/** The pod spec of a workload document (Deployment, DaemonSet, Job template, or a Pod). */
export function podSpecOf(doc: Doc): PodSpec | undefined {
  return doc.spec?.template?.spec ?? (doc.kind === "Pod" ? (doc.spec as PodSpec) : undefined);
}

/**
 * Every file an env var of a workload names inside a ConfigMap or Secret volume: the object (namespace,
 * kind, name) and the key the file is.
 */
export function mountedFiles(all: Doc[]) {
  return all.flatMap((doc) => {
    const spec = podSpecOf(doc);
    if (!spec) return [];
    return spec.containers.flatMap((c) =>
      (c.env ?? []).flatMap((env) => {
        const mount = (c.volumeMounts ?? []).find((m) => env.value?.startsWith(`${m.mountPath}/`));
        const volume = spec.volumes?.find((v) => v.name === mount?.name);
        const object = volume?.configMap
          ? { kind: "ConfigMap", name: volume.configMap.name }
          : volume?.secret
            ? { kind: "Secret", name: volume.secret.secretName }
            : undefined;
        if (!mount || !object || env.value === undefined) return [];
        const key = env.value.slice(mount.mountPath.length + 1);
        return [{ workload: doc, env: env.name, namespace: doc.metadata.namespace ?? "", ...object, key }];
      }),
    );
  });
}

/** The env value a workload's first container sets. */
export function envOf(all: Doc[], kind: string, name: string, variable: string): string | undefined {
  const doc = all.find((d) => d.kind === kind && d.metadata.name === name);
  return doc && podSpecOf(doc)?.containers[0].env?.find((e) => e.name === variable)?.value;
}

/** The file the script makes for the file an env var names: through the mount, the object and its key. */
export function fileFor(
  all: Doc[],
  created: Created[],
  kind: string,
  name: string,
  variable: string,
): string {
  const file = mountedFiles(all).find(
    (f) => f.workload.kind === kind && f.workload.metadata.name === name && f.env === variable,
  );
  assert.ok(file, `${kind} ${name}: ${variable} names a file in a mounted ConfigMap or Secret`);
  const object = created.find(
    (c) => c.kind === file.kind && c.name === file.name && c.namespace === file.namespace,
  );
  assert.ok(
    object?.files[file.key],
    `${variable}: calico-tls.sh makes ${file.kind} ${file.name} key ${file.key}`,
  );
  return object.files[file.key];
}

/** Whether a `k=v` or `k!=v` label selector (comma-separated) selects `doc`, as kubectl -l does. */
export function selects(selector: string, doc: Doc): boolean {
  return selector.split(",").every((term) => {
    const [key, value] = term.split(/!?=/);
    const has = doc.metadata.labels?.[key] === value;
    return term.includes("!=") ? !has : has;
  });
}
