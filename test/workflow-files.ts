/** The workflow files as the tests read them: their shape, and the file of each name parsed. */
import * as fs from "fs";
import * as path from "path";
import YAML from "yaml";
import { WORKFLOWS_DIR } from "../scripts/lint-workflows";

export type Step = {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
};
export type Job = {
  "runs-on"?: string;
  if?: string;
  uses?: string;
  with?: Record<string, unknown>;
  needs?: string | string[];
  environment?: string;
  outputs?: Record<string, string>;
  permissions?: Record<string, string>;
  strategy?: { matrix?: Record<string, unknown> };
  concurrency?: { group: string; "cancel-in-progress": boolean };
  steps?: Step[];
};
export type Workflow = {
  on: Record<string, unknown> & {
    workflow_call?: { inputs?: Record<string, { required?: boolean; type?: string }> };
  };
  permissions?: Record<string, string>;
  concurrency?: { group: string; "cancel-in-progress": boolean };
  jobs: Record<string, Job>;
};

/** The text of `.github/workflows/<name>`. */
export function workflowText(name: string): string {
  return fs.readFileSync(path.join(WORKFLOWS_DIR, name), "utf8");
}

/** `.github/workflows/<name>`, parsed. */
export function workflow(name: string): Workflow {
  return YAML.parse(workflowText(name)) as Workflow;
}

/** The job's first step that uses `action` (any version). */
export function stepUsing(job: Job, action: string): Step | undefined {
  return job.steps?.find((s) => s.uses?.split("@")[0] === action);
}
