/**
 * Validation of Kubernetes objects against the upstream Kubernetes OpenAPI schema, through the
 * kubernetes-models package. Shared by the builder tests and the stack tests.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";

/*
 * Validation against Kubernetes' OpenAPI schema through kubernetes-models. The package is ESM-only and
 * exports its files to `import` only, while this repo compiles tests to CommonJS (where TypeScript turns
 * `import()` into `require()`), so each model file is loaded by its path; Node >= 20.19 can require() an
 * ES module.
 */
const loadModule = createRequire(__filename);
const MODELS_DIR = (loadModule.resolve.paths("kubernetes-models") ?? [])
  .map((dir) => path.join(dir, "kubernetes-models"))
  .find((dir) => fs.existsSync(path.join(dir, "package.json")));

type ModelClass = new (data: unknown) => { validate(): void };

/** The kubernetes-models file of each kind this component renders: `<apiVersion>/<Kind>`. */
const MODEL_FILES: Readonly<Record<string, string>> = {
  Namespace: "v1/Namespace",
  CustomResourceDefinition: "apiextensions.k8s.io/v1/CustomResourceDefinition",
  ServiceAccount: "v1/ServiceAccount",
  ClusterRole: "rbac.authorization.k8s.io/v1/ClusterRole",
  ClusterRoleBinding: "rbac.authorization.k8s.io/v1/ClusterRoleBinding",
  Role: "rbac.authorization.k8s.io/v1/Role",
  RoleBinding: "rbac.authorization.k8s.io/v1/RoleBinding",
  ConfigMap: "v1/ConfigMap",
  Secret: "v1/Secret",
  Deployment: "apps/v1/Deployment",
  Service: "v1/Service",
  PodDisruptionBudget: "policy/v1/PodDisruptionBudget",
  DaemonSet: "apps/v1/DaemonSet",
  NetworkPolicy: "networking.k8s.io/v1/NetworkPolicy",
  Job: "batch/v1/Job",
  Pod: "v1/Pod",
  ValidatingAdmissionPolicy: "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy",
  ValidatingAdmissionPolicyBinding: "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding",
};

/** The model class of an object's kind; an unmapped kind or a mismatched apiVersion fails. */
function modelFor(object: { apiVersion: string; kind: string }): ModelClass {
  const file = Object.hasOwn(MODEL_FILES, object.kind) ? MODEL_FILES[object.kind] : undefined;
  if (file === undefined) throw new Error(`no kubernetes-models class mapped for kind ${object.kind}`);
  assert.equal(file, `${object.apiVersion}/${object.kind}`, `apiVersion of ${object.kind}`);
  assert.ok(MODELS_DIR, "kubernetes-models is installed");
  const models = loadModule(path.join(MODELS_DIR, `${file}.js`)) as Record<string, ModelClass>;
  const model = models[object.kind];
  assert.equal(typeof model, "function", `kubernetes-models exports ${object.kind} from ${file}`);
  return model;
}

/** Throws with the JSON path of the first problem; an unmapped kind fails too. */
export function validateKubernetesObject(object: { apiVersion: string; kind: string }): void {
  const Model = modelFor(object);
  new Model(object).validate();
}
