/**
 * `calico.installer`: which keys each install mode reads. A key that only the other mode reads is refused
 * when it differs from its default, rather than silently doing nothing.
 */
import type { z } from "zod";
import { isRecord } from "./records";
import {
  DEFAULT_CALICO_NAMESPACE,
  DEFAULT_CALICO_REGISTRY,
  isSupportedCalicoVersion,
} from "../../components/calico/defaults";
import { DEFAULT_AUTOSCALER_REGISTRY } from "../../components/calico/defaults";
import { FELIX_SETTINGS } from "../../components/calico/felix-settings";
import { OPERATOR_CALICO_RELEASES } from "../../components/calico/operator/releases";
import {
  CALICO_SYSTEM_NAMESPACE,
  DEFAULT_OPERATOR_REGISTRY,
  installationRegistry,
} from "../../components/calico/operator/settings";

type Issue = { key: string; input: unknown; message: string };

/** Problems of a `calico` map whose keys are each valid on their own, for the mode it names. */
export function installerProblems(calico: Record<string, unknown>): Issue[] {
  const installer = calico.installer ?? "manifest";
  const issues: Issue[] = [];
  const differs = (key: string, fallback: unknown) => calico[key] !== undefined && calico[key] !== fallback;
  if (installer === "operator") {
    const version = calico.version;
    // A release refused on its own rule (an unsupported line) gets that message only.
    if (
      typeof version === "string" &&
      isSupportedCalicoVersion(version) &&
      !OPERATOR_CALICO_RELEASES.includes(version)
    ) {
      issues.push({
        key: "version",
        input: version,
        message: `has no Tigera operator release recorded for installer "operator": supported are ${OPERATOR_CALICO_RELEASES.join(", ")}`,
      });
    }
    if (differs("namespace", DEFAULT_CALICO_NAMESPACE)) {
      issues.push({
        key: "namespace",
        input: calico.namespace,
        message: `applies to installer "manifest" only: the operator always runs Calico in ${CALICO_SYSTEM_NAMESPACE}; remove it`,
      });
    }
    if (differs("autoscalerRegistry", DEFAULT_AUTOSCALER_REGISTRY)) {
      issues.push({
        key: "autoscalerRegistry",
        input: calico.autoscalerRegistry,
        message: `applies to installer "manifest" only: the operator scales Typha itself; remove it`,
      });
    }
    const felix = isRecord(calico.felix) ? calico.felix : {};
    const felixSet = Object.entries(FELIX_SETTINGS).some(
      ([key, setting]) => felix[key] !== undefined && felix[key] !== setting.default,
    );
    if (felixSet) {
      issues.push({
        key: "felix",
        input: felix,
        message: `applies to installer "manifest" only: with the operator, Felix reads FelixConfiguration default, which the operator creates and this program does not manage; set it there (kubectl patch felixconfiguration default)`,
      });
    }
    if (calico.adopt === true) {
      issues.push({
        key: "adopt",
        input: true,
        message: `applies to installer "manifest" only: with the operator, an existing kube-system/calico-node is taken over by the operator's own migration, which this program does not plan yet`,
      });
    }
    const registry = calico.registry ?? DEFAULT_CALICO_REGISTRY;
    if (typeof registry === "string" && installationRegistry(registry) === undefined) {
      issues.push({
        key: "registry",
        input: registry,
        message: `needs a path after the host with installer "operator", such as ${registry}/calico: the operator adds its own path "calico" to a bare registry host`,
      });
    }
  } else if (installer === "manifest") {
    if (calico.observability === true) {
      issues.push({
        key: "observability",
        input: true,
        message: `needs installer "operator": Goldmane and Whisker are installed and run by the Tigera operator`,
      });
    }
    if (differs("operatorRegistry", DEFAULT_OPERATOR_REGISTRY)) {
      issues.push({
        key: "operatorRegistry",
        input: calico.operatorRegistry,
        message: `applies to installer "operator" only; remove it or set calico.installer: operator`,
      });
    }
  }
  return issues;
}

/** Adds {@link installerProblems} at their `calico.*` key paths. */
export function checkInstaller(config: Record<string, unknown>, ctx: z.core.$RefinementCtx): void {
  if (!isRecord(config.calico)) return;
  for (const issue of installerProblems(config.calico)) {
    ctx.addIssue({ code: "custom", path: ["calico", issue.key], input: issue.input, message: issue.message });
  }
}
