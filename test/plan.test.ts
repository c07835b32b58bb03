/**
 * The offline plan (`npm start`): the tree, resources.json, calico.yaml and graph.mmd rendered from real
 * evaluations (the diff is in diff.test.ts, the CLI in start.test.ts, calico.yaml's header and calico-tls.sh
 * in calico-yaml.test.ts).
 */
import * as assert from "node:assert/strict";
import YAML from "yaml";
import { KNOWN_AFTER_UP, type ResourceRecord, type StackEvaluation } from "../offline/engine";
import { parseResourcesDocument } from "../offline/diff";
import {
  CALICO_COMPONENT_TYPE,
  LEGEND,
  SECRET_MASK,
  renderResourcesJson,
  renderTree,
  resourcesDocument,
  sortKeys,
} from "../offline/plan";
import { calicoObjects, renderCalicoYaml, typhaReplicas } from "../offline/calico-yaml";
import { renderGraph } from "../offline/graph-mmd";
import { renderPlanFiles } from "../offline/plan-files";
import { FELIX_CLIENT_SECRET, TYPHA_CA_CONFIGMAP, TYPHA_SERVER_SECRET } from "../components/calico/typha-tls";
import { evaluated, evaluatedWith, input } from "./helpers";

/** Components (and the stack) each record lies beneath, nearest first. */
function ancestorsOf(evaluation: StackEvaluation, record: ResourceRecord): ResourceRecord[] {
  const byUrn = new Map(evaluation.resources.map((r) => [r.urn, r]));
  const chain: ResourceRecord[] = [];
  let parent = record.parent === undefined ? undefined : byUrn.get(record.parent);
  while (parent !== undefined) {
    chain.push(parent);
    parent = parent.parent === undefined ? undefined : byUrn.get(parent.parent);
  }
  return chain;
}

// A hand-built evaluation, for what the real program does not (or not yet) contain.
const OPTIONS: ResourceRecord["options"] = {
  protect: false,
  retainOnDelete: false,
  deleteBeforeReplace: false,
  ignoreChanges: [],
  replaceOnChanges: [],
};

function fakeRecord(
  type: string,
  name: string,
  parent: ResourceRecord | undefined,
  extra: Partial<ResourceRecord> = {},
): ResourceRecord {
  // A URN qualifies the type with its ancestors' types, the stack's excepted.
  const qualified =
    parent === undefined || parent.type === "pulumi:pulumi:Stack"
      ? type
      : `${parent.urn.split("::")[2]}$${type}`;
  return {
    urn: `urn:pulumi:test::eks-calico::${qualified}::${name}`,
    type,
    name,
    custom: true,
    remote: false,
    ...(parent !== undefined ? { parent: parent.urn } : {}),
    dependencies: [],
    propertyDependencies: {},
    inputs: {},
    secretInputs: [],
    aliases: [],
    options: OPTIONS,
    ...extra,
  };
}

function fakeEvaluation(withCalico: boolean): StackEvaluation {
  const stack = fakeRecord("pulumi:pulumi:Stack", "eks-calico-test", undefined, { custom: false });
  const cluster = fakeRecord("eks-calico:cluster:Cluster", "cluster", stack, { custom: false });
  const provider = fakeRecord("pulumi:providers:kubernetes", "cluster-k8s", cluster, {
    inputs: { kubeconfig: "{}" },
  });
  const other = fakeRecord("kubernetes:core/v1:ConfigMap", "cluster-info", cluster, {
    inputs: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "info" } },
  });
  const resources = [stack, cluster, provider, other];
  if (withCalico) {
    const calico = fakeRecord(CALICO_COMPONENT_TYPE, "calico", stack, { custom: false });
    resources.push(
      calico,
      fakeRecord("kubernetes:apps/v1:Deployment", "calico-typha", calico, {
        provider: provider.urn,
        inputs: {
          spec: { replicas: 3 },
          metadata: { namespace: "kube-system", name: "calico-typha" },
          kind: "Deployment",
          apiVersion: "apps/v1",
        },
      }),
      fakeRecord("kubernetes:core/v1:Secret", "calico-secret", calico, {
        provider: provider.urn,
        inputs: {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "s" },
          stringData: { token: "hunter2" },
        },
        secretInputs: ["stringData"],
      }),
      fakeRecord("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition", "calico-crd", calico, {
        provider: provider.urn,
        inputs: {
          apiVersion: "apiextensions.k8s.io/v1",
          kind: "CustomResourceDefinition",
          metadata: { name: "ippools.crd.projectcalico.org" },
        },
      }),
    );
  }
  return { project: "eks-calico", stack: "test", resources, outputs: {}, secretOutputs: [], simulated: [] };
}

describe("offline plan: the tree", () => {
  it("nests every resource under its parent, as the parent URNs say", async () => {
    const dev = await evaluated("dev");
    const lines = renderTree(dev).split("\n");
    const byLabel = new Map(dev.resources.map((r) => [`${r.type} ${r.name}`, r]));
    // Depth from the tree prefix: the root has none, then three characters per level.
    const stackLine = lines.findIndex((l) => l.startsWith("pulumi:pulumi:Stack "));
    const open: ResourceRecord[] = [];
    let seen = 0;
    for (const line of lines.slice(stackLine)) {
      if (line === "") break;
      const match = /^((?:[│ ] {2})*)(?:[├└]─ )?(\S+ \S+)/.exec(line);
      assert.ok(match, `unexpected tree line: ${line}`);
      const depth = line === lines[stackLine] ? 0 : match[1].length / 3 + 1;
      const record = byLabel.get(match[2]);
      assert.ok(record, `tree line names no resource: ${line}`);
      assert.equal(record.parent, depth === 0 ? undefined : open[depth - 1].urn, `parent of ${match[2]}`);
      open[depth] = record;
      seen += 1;
    }
    assert.equal(seen, dev.resources.length, "every resource appears once");
  });

  it("gives each component's resource count and the count of every type", async () => {
    const dev = await evaluated("dev");
    const tree = renderTree(dev);
    assert.ok(tree.startsWith(`Stack dev (project eks-calico): ${dev.resources.length} resources\n`));
    assert.ok(tree.includes(`\n${LEGEND}\n`), "legend line");
    for (const component of dev.resources.filter((r) => !r.custom && !r.remote && r.parent)) {
      const below = dev.resources.filter((r) => ancestorsOf(dev, r).includes(component)).length;
      assert.ok(
        tree.includes(`${component.type} ${component.name}  (${below} resources)`),
        `${component.type} ${component.name} with ${below} resources`,
      );
    }
    for (const type of new Set(dev.resources.map((r) => r.type))) {
      const count = dev.resources.filter((r) => r.type === type).length;
      assert.match(tree, new RegExp(`\\n +${count}  ${type.replace(/[.$/]/g, "\\$&")}( |\\n)`), type);
    }
    assert.match(tree, new RegExp(`\\n +${dev.resources.length}  total\\n`));
    assert.match(tree, / eks:index:Cluster cluster-eks {2}\(remote\)\n/);
  });

  it("lists the stack outputs with secrets masked and placeholders as they are", async () => {
    const tree = renderTree(await evaluated("dev"));
    const outputs = tree.slice(tree.indexOf("\nOutputs:\n"));
    assert.match(outputs, /\n {2}kubeconfig +: \[secret\]\n/);
    assert.match(outputs, /\n {2}vpcId +: "<vpc-id:network-vpc>"\n/);
    assert.match(outputs, /\n {2}clusterName +: "eks-calico-dev"\n/);
    assert.ok(!tree.includes("certificate-authority-data"), "no kubeconfig content anywhere");
  });
});

describe("offline plan: resources.json", () => {
  it("holds every resource, sorted by URN, with keys sorted at every level", async () => {
    const dev = await evaluated("dev");
    const text = renderResourcesJson(dev);
    const doc = parseResourcesDocument(text, "resources.json");
    assert.equal(doc.stack, "dev");
    assert.equal(doc.resources.length, dev.resources.length);
    const urns = doc.resources.map((r) => r.urn);
    assert.deepEqual(urns, [...dev.resources.map((r) => r.urn)].sort());
    assert.equal(text, `${JSON.stringify(sortKeys(JSON.parse(text)), null, 2)}\n`, "keys sorted");
    assert.ok(text.endsWith("}\n"));
  });

  it("names parents, providers and referenced resources by type::name", async () => {
    const dev = await evaluated("dev");
    const doc = resourcesDocument(dev);
    const vpc = doc.resources.find((r) => r.name === "network-vpc");
    assert.equal(vpc?.parent, "eks-calico:network:Network::network");
    const group = doc.resources.find((r) => r.type === "aws:eks/nodeGroup:NodeGroup");
    assert.deepEqual(group?.propertyDependencies.clusterName, ["eks:index:Cluster::cluster-eks"]);
    assert.deepEqual(group?.propertyDependencies.nodeRoleArn, ["aws:iam/role:Role::cluster-node"]);
    assert.ok(
      !JSON.stringify(doc.resources.map((r) => r.inputs)).includes("urn:pulumi:"),
      "no URNs in inputs",
    );
    assert.deepEqual(doc.resources.find((r) => r.name === "network-igw")?.dependencies, [
      "aws:ec2/vpc:Vpc::network-vpc",
    ]);
  });

  it("masks the kubeconfig output and the Kubernetes provider's kubeconfig input", async () => {
    const dev = await evaluated("dev");
    const text = renderResourcesJson(dev);
    const doc = resourcesDocument(dev);
    assert.equal(doc.outputs.kubeconfig, SECRET_MASK);
    const provider = doc.resources.find((r) => r.type === "pulumi:providers:kubernetes");
    assert.equal(provider?.inputs.kubeconfig, SECRET_MASK);
    assert.deepEqual(provider?.secretInputs, ["kubeconfig"]);
    assert.ok(!text.includes("certificate-authority-data"), "no kubeconfig content in resources.json");
  });

  it("masks inputs the engine reports secret", () => {
    const doc = resourcesDocument(fakeEvaluation(true));
    const secret = doc.resources.find((r) => r.name === "calico-secret");
    assert.equal(secret?.inputs.stringData, SECRET_MASK);
    assert.ok(!JSON.stringify(doc).includes("hunter2"));
  });

  it("renders byte-identical files from two evaluations", async () => {
    const first = await evaluatedWith("dev", {});
    const second = await evaluatedWith("dev", {});
    assert.notEqual(first, second);
    assert.deepEqual(renderPlanFiles(first), renderPlanFiles(second));
    assert.equal(renderTree(first), renderTree(second));
  });
});

describe("offline plan: calico.yaml", () => {
  it("holds the Kubernetes objects under the Calico component in apply order by kind, secrets masked", () => {
    const evaluation = fakeEvaluation(true);
    const text = renderCalicoYaml(evaluation);
    const docs = YAML.parseAllDocuments(text).map((d) => d.toJS() as Record<string, unknown>);
    assert.deepEqual(
      docs.map((d) => d.kind),
      ["CustomResourceDefinition", "Secret", "Deployment"],
      "CRDs first, Secrets before the workloads that mount them; the provider and objects elsewhere left out",
    );
    assert.deepEqual(Object.keys(docs[2]).slice(0, 3), ["apiVersion", "kind", "metadata"]);
    assert.deepEqual(docs[2].spec, { replicas: 3 });
    assert.equal(docs[1].stringData, SECRET_MASK);
    assert.ok(text.startsWith("# Calico (policy-only) objects of stack test: 3 objects"));
    assert.equal(typhaReplicas(evaluation), 3);
  });

  it("says so in a comment when the stack has no Calico component", () => {
    const evaluation = fakeEvaluation(false);
    const text = renderCalicoYaml(evaluation);
    assert.equal(
      text,
      `# Stack test has no ${CALICO_COMPONENT_TYPE} component: there are no Calico objects to apply.\n`,
    );
    assert.deepEqual(calicoObjects(evaluation), []);
    assert.equal(typhaReplicas(evaluation), undefined);
  });

  it("matches the real stack: one document per Calico object, or the comment", async () => {
    const dev = await evaluated("dev");
    const docs = YAML.parseAllDocuments(renderCalicoYaml(dev)).filter((d) => d.contents !== null);
    const component = dev.resources.find((r) => r.type === CALICO_COMPONENT_TYPE);
    const objects = dev.resources.filter(
      (r) => r.type.startsWith("kubernetes:") && component && ancestorsOf(dev, r).includes(component),
    );
    // All but the Typha TLS objects, which calico-tls.sh creates (test/calico-yaml.test.ts), and the
    // probe's other-node Jobs, known after up.
    const tls = [TYPHA_CA_CONFIGMAP, TYPHA_SERVER_SECRET, FELIX_CLIENT_SECRET];
    const named = (r: ResourceRecord) => input<string>(r, "metadata.name");
    const known = objects.filter((r) => r.inputs.metadata !== KNOWN_AFTER_UP);
    assert.equal(objects.length - known.length, 3);
    assert.equal(docs.length, known.filter((r) => !tls.includes(named(r))).length);
    assert.deepEqual(
      docs
        .map((d) => (d.toJS() as { metadata: { name: string } }).metadata.name)
        .filter((n) => tls.includes(n)),
      [],
    );
    const kinds = docs.map((d) => (d.toJS() as { kind: string }).kind);
    const firstOther = kinds.findIndex((k) => k !== "CustomResourceDefinition" && k !== "Namespace");
    if (firstOther >= 0) {
      assert.ok(!kinds.slice(firstOther).includes("CustomResourceDefinition"), "no CRD after another kind");
    }
    const typha = objects.find(
      (r) => input(r, "metadata.name") === "calico-typha" && r.type.endsWith(":Deployment"),
    );
    assert.equal(typhaReplicas(dev), typha && input<number>(typha, "spec.replicas"));
  });
});

describe("offline plan: graph.mmd", () => {
  it("draws the components, remote components and the edges between them", async () => {
    const dev = await evaluated("dev");
    const graph = renderGraph(dev);
    const lines = graph.split("\n");
    assert.equal(lines[0], "graph TD");
    for (const id of ["stack", "Network_network", "Cluster_cluster", "Cluster_cluster_eks"]) {
      assert.ok(
        lines.some((l) => l.startsWith(`  ${id}["`)),
        `node ${id}`,
      );
    }
    for (const edge of [
      "stack --> Network_network",
      "stack --> Cluster_cluster",
      "Cluster_cluster --> Cluster_cluster_eks",
      // The EKS cluster sits in the network's subnets.
      "Cluster_cluster_eks -.-> Network_network",
    ]) {
      assert.ok(lines.includes(`  ${edge}`), `edge ${edge}`);
    }
    assert.ok(!/Vpc_|Subnet_/.test(graph), "custom resources are not nodes");
    const declared = new Set(lines.map((l) => /^ {2}(\w+)\["/.exec(l)?.[1]).filter(Boolean));
    const edges = lines.map((l) => /^ {2}(\w+) (?:-->|-\.->) (\w+)$/.exec(l)).filter((m) => m !== null);
    assert.ok(edges.length >= 7);
    for (const [, from, to] of edges) {
      assert.ok(declared.has(from) && declared.has(to), `edge ${from} -> ${to} joins two nodes`);
    }

    const remoteClass = lines.find((l) => l.startsWith("  class ") && l.endsWith(" remote"));
    const remoteIds = remoteClass?.slice("  class ".length, -" remote".length).split(",") ?? [];
    assert.equal(
      remoteIds.length,
      dev.resources.filter((r) => r.remote).length,
      "every remote component styled",
    );
    assert.deepEqual(remoteIds, ["Cluster_cluster_eks"]);
  });
});
