/**
 * `calico.felix` (components/calico/felix-settings.ts): each row is a key of the stack file, checked
 * against the values Felix accepts, and an environment variable of calico-node; a row at its default
 * renders what deployed stacks already run, so adding one rolls no node.
 */
import * as assert from "node:assert/strict";
import { renderCalicoNode } from "../components/calico/daemonset";
import { DEFAULT_FELIX, FELIX_SETTINGS, type FelixSettings } from "../components/calico/felix-settings";
import { conversionBlockers } from "../components/calico/operator/migration";
import { stackConfigSchema } from "../stacks/schema";
import { evaluatedWith, input, one } from "./helpers";

const baseConfig = {
  nodeGroups: [{ name: "general", instanceTypes: ["m6i.large"], minSize: 1, desiredSize: 2, maxSize: 3 }],
};

function parsed(calico: Record<string, unknown>) {
  return stackConfigSchema.safeParse({ ...baseConfig, calico });
}

function issues(calico: Record<string, unknown>): string[] {
  const result = parsed(calico);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

function felixEnvOf(felix: FelixSettings): Record<string, string | undefined> {
  const node = renderCalicoNode("kube-system", "quay.io/calico", "v3.31.7", "10%", undefined, felix);
  const container = node.spec.template.spec?.containers[0];
  return Object.fromEntries(
    (container?.env ?? []).filter((e) => e.name.startsWith("FELIX_")).map((e) => [e.name, e.value]),
  );
}

/** Each row at a value other than its default. */
const SET: FelixSettings = Object.fromEntries(
  Object.entries(FELIX_SETTINGS).map(([key, s]) => [
    key,
    (s.values as readonly (string | boolean)[]).find((v) => v !== s.default),
  ]),
) as FelixSettings;

describe("calico.felix: Felix's settings passed through", () => {
  it("defaults every key to its row's default", () => {
    const result = parsed({});
    assert.ok(result.success);
    assert.deepEqual(result.data.calico.felix, DEFAULT_FELIX);
  });

  it("renders what deployed stacks run at the defaults: only FELIX_LOGSEVERITYSCREEN=info", () => {
    const env = felixEnvOf(DEFAULT_FELIX);
    assert.equal(env.FELIX_LOGSEVERITYSCREEN, "info");
    assert.equal("FELIX_PROMETHEUSMETRICSENABLED" in env, false, "a new row at its default adds nothing");
  });

  it("puts each key's value in its environment variable", () => {
    const env = felixEnvOf(SET);
    for (const [key, setting] of Object.entries(FELIX_SETTINGS)) {
      assert.equal(env[setting.env], String(SET[key as keyof FelixSettings]), key);
    }
  });

  it("refuses a value Felix does not accept, naming the key and the values, every one at once", () => {
    const found = issues({ felix: { logSeverityScreen: "verbose", prometheusMetricsEnabled: "yes" } });
    assert.deepEqual(found, [
      'calico.felix.logSeverityScreen: must be one of "trace", "debug", "info", "warning", "error", "fatal"',
      "calico.felix.prometheusMetricsEnabled: must be true or false",
    ]);
    assert.deepEqual(issues({ felix: { logLevel: "debug" } }).length, 1, "an unknown key");
  });

  it("is refused with the operator install, which owns FelixConfiguration", () => {
    const found = issues({ installer: "operator", felix: { logSeverityScreen: "debug" } });
    assert.equal(found.length, 1);
    assert.match(
      found[0],
      /^calico\.felix: applies to installer "manifest" only: .*FelixConfiguration default/,
    );
  });

  it("adds nothing the operator's migration cannot convert, with every key set", () => {
    const node = (felix: FelixSettings) =>
      renderCalicoNode("kube-system", "quay.io/calico", "v3.31.7", "10%", undefined, felix);
    assert.deepEqual(conversionBlockers(node(SET)), conversionBlockers(node(DEFAULT_FELIX)));
  });

  it("reaches calico-node in the plan, a switch written as YAML's true", async () => {
    const evaluation = await evaluatedWith("dev", {
      config: {
        "eks-calico:calico.felix.logSeverityScreen": "debug",
        "eks-calico:calico.felix.prometheusMetricsEnabled": true,
      },
    });
    const node = one(evaluation, "kubernetes:apps/v1:DaemonSet", "calico-daemonset-calico-node");
    const env = input<{ name: string; value?: string }[]>(node, "spec.template.spec.containers.0.env");
    assert.equal(env.find((e) => e.name === "FELIX_LOGSEVERITYSCREEN")?.value, "debug");
    assert.equal(env.find((e) => e.name === "FELIX_PROMETHEUSMETRICSENABLED")?.value, "true");
  });
});
