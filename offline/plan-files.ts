/** The files `npm start` writes to `<out>/<stack>/`: resources.json, calico.yaml, calico-tls.sh and graph.mmd. */
import { renderCalicoTlsScript } from "./calico-tls";
import { renderCalicoYaml } from "./calico-yaml";
import type { StackEvaluation } from "./engine";
import { renderGraph } from "./graph-mmd";
import { renderResourcesJson } from "./plan";

/** The files, in the order `npm start` writes them. */
export const PLAN_FILES = ["resources.json", "calico.yaml", "calico-tls.sh", "graph.mmd"] as const;
export type PlanFileName = (typeof PLAN_FILES)[number];

/** Every file `npm start` writes, by name. */
export function renderPlanFiles(evaluation: StackEvaluation): Record<PlanFileName, string> {
  return {
    "resources.json": renderResourcesJson(evaluation),
    "calico.yaml": renderCalicoYaml(evaluation),
    "calico-tls.sh": renderCalicoTlsScript(evaluation),
    "graph.mmd": renderGraph(evaluation),
  };
}
