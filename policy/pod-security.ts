/**
 * Pod Security: pods of a namespace that enforces the `restricted` profile meet it. The API server refuses
 * such pods at admission, which a Job or Deployment await only reports as a timeout minutes into `up`.
 * The checks are the restricted profile's (https://kubernetes.io/docs/concepts/security/pod-security-standards/).
 */
import type { StackValidationPolicy } from "@pulumi/policy";
import { type Props, isRecord } from "./common";

const ENFORCE = "pod-security.kubernetes.io/enforce";
const WORKLOAD =
  /^kubernetes:(apps\/v1:(Deployment|DaemonSet|StatefulSet|ReplicaSet)|batch\/v1:(Job|CronJob)|core\/v1:Pod)$/;

/** The pod spec of a workload's template (a CronJob's job template's), or of a Pod itself. */
function podSpecOf(type: string, props: Props): Props | undefined {
  if (type === "kubernetes:core/v1:Pod") return isRecord(props.spec) ? props.spec : undefined;
  const spec = isRecord(props.spec) ? props.spec : {};
  const jobSpec = type.endsWith(":CronJob") && isRecord(spec.jobTemplate) ? spec.jobTemplate.spec : spec;
  const template = isRecord(jobSpec) && isRecord(jobSpec.template) ? jobSpec.template : {};
  return isRecord(template.spec) ? template.spec : undefined;
}

/** What a pod spec breaks of the restricted profile. */
export function restrictedViolations(pod: Props): string[] {
  const problems: string[] = [];
  const podContext = isRecord(pod.securityContext) ? pod.securityContext : {};
  for (const host of ["hostNetwork", "hostPID", "hostIPC"] as const) {
    if (pod[host] === true) problems.push(`${host} is true`);
  }
  const containers = [pod.initContainers, pod.containers].flatMap((list): unknown[] =>
    Array.isArray(list) ? (list as unknown[]) : [],
  );
  for (const container of containers.filter(isRecord)) {
    const name = typeof container.name === "string" ? container.name : "(unnamed)";
    const context = isRecord(container.securityContext) ? container.securityContext : {};
    const seccomp = isRecord(context.seccompProfile) ? context.seccompProfile : podContext.seccompProfile;
    const capabilities = isRecord(context.capabilities) ? context.capabilities : {};
    const drop = Array.isArray(capabilities.drop) ? capabilities.drop : [];
    const add = Array.isArray(capabilities.add) ? capabilities.add : [];
    if (context.privileged === true) problems.push(`${name}: privileged`);
    if (context.allowPrivilegeEscalation !== false)
      problems.push(`${name}: allowPrivilegeEscalation is not false`);
    if ((context.runAsNonRoot ?? podContext.runAsNonRoot) !== true)
      problems.push(`${name}: runAsNonRoot is not true`);
    if ((context.runAsUser ?? podContext.runAsUser) === 0) problems.push(`${name}: runAsUser is 0`);
    if (!isRecord(seccomp) || !["RuntimeDefault", "Localhost"].includes(String(seccomp.type))) {
      problems.push(`${name}: seccompProfile is not RuntimeDefault or Localhost`);
    }
    if (!drop.includes("ALL")) problems.push(`${name}: capabilities do not drop ALL`);
    if (add.some((c) => c !== "NET_BIND_SERVICE"))
      problems.push(`${name}: adds capabilities ${JSON.stringify(add)}`);
  }
  return problems;
}

export const podSecurityRestricted: StackValidationPolicy = {
  name: "k8s-pod-security-restricted",
  description:
    `Every pod of a namespace the stack labels ${ENFORCE}: restricted meets the restricted profile (not ` +
    "privileged, no host namespaces, no privilege escalation, non-root, seccomp RuntimeDefault, all " +
    "capabilities dropped): the API server would refuse it, and `pulumi up` would wait out its timeout.",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    const restricted = new Set(
      args.resources
        .filter((r) => r.type === "kubernetes:core/v1:Namespace")
        .map((r) => (isRecord(r.props.metadata) ? r.props.metadata : {}))
        .filter((m) => isRecord(m.labels) && m.labels[ENFORCE] === "restricted")
        .map((m) => m.name),
    );
    if (restricted.size === 0)
      args.notApplicable("no namespace of the stack enforces the restricted profile");
    for (const resource of args.resources) {
      if (!WORKLOAD.test(resource.type)) continue;
      const metadata = isRecord(resource.props.metadata) ? resource.props.metadata : {};
      if (!restricted.has(metadata.namespace)) continue;
      const pod = podSpecOf(resource.type, resource.props);
      const problems = pod === undefined ? ["no pod spec"] : restrictedViolations(pod);
      if (problems.length > 0) {
        report(
          `${resource.type} ${resource.name} runs in namespace ${String(metadata.namespace)}, which enforces the restricted Pod Security profile, but ${problems.join("; ")}: the API server refuses its pods.`,
          resource.urn,
        );
      }
    }
  },
};
