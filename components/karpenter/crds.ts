/**
 * Karpenter's CustomResourceDefinitions: the pinned AWS provider release's own (./crds/, from
 * github.com/aws/karpenter-provider-aws v1.15.0 pkg/apis/crds), kept as upstream ships them. Their schemas
 * carry the defaults and CEL rules the controller relies on (a NodePool's disruption budgets, an
 * EC2NodeClass's IMDSv2 default), so they are data, not written again here.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import type { CustomResourceDefinition } from "../calico/object-shapes";

export const CRD_DIR = path.join(__dirname, "crds");

/** Every CRD of the release, by file name order. */
export function karpenterCrds(): CustomResourceDefinition[] {
  return fs
    .readdirSync(CRD_DIR)
    .filter((file) => file.endsWith(".yaml"))
    .sort()
    .map((file) => YAML.parse(fs.readFileSync(path.join(CRD_DIR, file), "utf8")) as CustomResourceDefinition);
}
