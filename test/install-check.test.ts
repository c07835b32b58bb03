/**
 * The install check (components/calico/install-check.ts): one Calico install on the nodes at a time,
 * judged from the cluster's calico-node DaemonSets, not from the stack's last outputs. It refuses in the
 * provider's `check`, which the engine calls in every preview and update, for a step new or in the state;
 * what it reads never changes the step.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import requireFromString from "require-from-string";
import YAML from "yaml";
import {
  CALICO_NODE_LIST_PATH,
  INSTALL_CHECK_TYPE,
  type InstallCheckInputs,
  type ListedDaemonSet,
  installCheckProvider,
  otherInstalls,
} from "../components/calico/install-check";
import { renderCalicoNode } from "../components/calico/daemonset";
import { TAKEOVER_TYPE } from "../components/calico/takeover";
import { FakeApiServer } from "./fake-api-server";
import {
  UNREACHABLE_KUBECONFIG,
  dependsOn,
  evaluatedWith,
  evaluatedWithOperator,
  one,
  ofType,
} from "./helpers";

/** This program's calico-node, as it renders it in `namespace`. */
const ours = (namespace: string): ListedDaemonSet =>
  renderCalicoNode(namespace, "quay.io/calico", "v3.31.7", "10%") as unknown as ListedDaemonSet;

/**
 * The Tigera operator's calico-node as each operator release writes its metadata (tigera/operator
 * pkg/controller/utils/component.go createOrUpdateObject and setStandardSelectorAndLabels): v1.40.15
 * labels only the pod template; v1.42.3 adds the recommended labels. Both set the Installation as owner.
 */
const installationOwner = [
  { apiVersion: "operator.tigera.io/v1", kind: "Installation", name: "default", controller: true },
];
const OPERATOR_V1_40: ListedDaemonSet = {
  metadata: { namespace: "calico-system", name: "calico-node", ownerReferences: installationOwner },
};
const OPERATOR_V1_42: ListedDaemonSet = {
  metadata: {
    namespace: "calico-system",
    name: "calico-node",
    ownerReferences: installationOwner,
    labels: {
      "k8s-app": "calico-node",
      "app.kubernetes.io/name": "calico-node",
      "app.kubernetes.io/instance": "default",
      "app.kubernetes.io/component": "Installation.operator.tigera.io",
      "app.kubernetes.io/part-of": "Calico",
      "app.kubernetes.io/managed-by": "tigera-operator",
    },
  },
};

/** Calico's own policy-only manifest's calico-node, as applied with kubectl (kube-system). */
const KUBECTL_MANIFEST = YAML.parseAllDocuments(
  fs.readFileSync(path.join(__dirname, "fixtures", "adopt", "calico-policy-only.yaml"), "utf8"),
)
  .map((d) => d.toJS() as { kind?: string } & ListedDaemonSet)
  .find((d) => d.kind === "DaemonSet") as ListedDaemonSet;

const manifest = (namespace: string, adopt = false): InstallCheckInputs => ({
  kubeconfig: "k",
  installer: "manifest",
  namespace,
  adopt,
  objects: [],
});
const OPERATOR: InstallCheckInputs = {
  kubeconfig: "k",
  installer: "operator",
  namespace: "calico-system",
  adopt: false,
  objects: [],
};

const found = (install: InstallCheckInputs, ...daemonSets: ListedDaemonSet[]) =>
  otherInstalls(install, daemonSets).map((o) => `${o.path} ${o.daemonSet}`);

describe("the install check's rules", () => {
  it("a manifest install refuses this program's calico-node in another namespace, not its own", () => {
    assert.deepEqual(KUBECTL_MANIFEST.metadata.namespace, "kube-system");
    assert.deepEqual(found(manifest("kube-system"), ours("calico-system")), [
      "calico.namespace calico-system/calico-node",
    ]);
    assert.deepEqual(found(manifest("calico-system"), ours("calico-system")), []);
    // Another tool's manifest is refused only while adopting: adopt takes over calico.namespace alone.
    assert.deepEqual(found(manifest("calico-system"), KUBECTL_MANIFEST), []);
    assert.deepEqual(found(manifest("calico-system", true), KUBECTL_MANIFEST), [
      "calico.adopt kube-system/calico-node",
    ]);
    assert.deepEqual(found(manifest("kube-system", true), KUBECTL_MANIFEST), []);
  });

  it("a manifest install refuses the operator's calico-node of either operator release, wherever it runs", () => {
    for (const operator of [OPERATOR_V1_40, OPERATOR_V1_42]) {
      assert.deepEqual(found(manifest("kube-system"), operator), [
        "calico.installer calico-system/calico-node",
      ]);
      assert.deepEqual(found(manifest("calico-system", true), operator), [
        "calico.installer calico-system/calico-node",
      ]);
    }
  });

  it("the operator refuses this program's manifest calico-node in any namespace, never its own", () => {
    assert.deepEqual(found(OPERATOR, OPERATOR_V1_40), []);
    assert.deepEqual(found(OPERATOR, OPERATOR_V1_42), []);
    assert.deepEqual(found(OPERATOR, ours("kube-system"), ours("calico-system")), [
      "calico.installer kube-system/calico-node",
      "calico.installer calico-system/calico-node",
    ]);
    // A kubectl manifest in kube-system is the operator's own migration (convert.NeedsConversion).
    assert.deepEqual(found(OPERATOR, KUBECTL_MANIFEST), []);
  });
});

describe("the install check step", function () {
  let api: FakeApiServer;
  before(async () => (api = await FakeApiServer.start()));
  after(() => api.stop());
  beforeEach(() => api.reset());
  const inputs = (install: InstallCheckInputs): InstallCheckInputs => ({
    ...install,
    kubeconfig: api.kubeconfig(),
  });
  const list = (...items: ListedDaemonSet[]) => ({ status: 200, body: { kind: "DaemonSetList", items } });

  it("lists calico-node DaemonSets by name in every namespace: the operator's v1.40 has no label", () => {
    assert.equal(CALICO_NODE_LIST_PATH, "/apis/apps/v1/daemonsets?fieldSelector=metadata.name%3Dcalico-node");
  });

  it("refuses a namespace move in check, naming the DaemonSet, why, and the way forward", async () => {
    api.routes = { [CALICO_NODE_LIST_PATH]: list(ours("calico-system")) };
    const news = inputs(manifest("kube-system"));
    await assert.rejects(
      installCheckProvider.check!(inputs(manifest("calico-system")), news),
      (error: Error) => {
        assert.match(error.message, /^calico\.namespace: another Calico install runs on the nodes/);
        assert.match(error.message, /- DaemonSet calico-system\/calico-node: this program's install/);
        assert.match(error.message, /Typha uses the host network/);
        assert.match(error.message, /two privileged Felixes program the same chains on every node/);
        assert.match(error.message, /Nothing was changed/);
        assert.match(error.message, /set calico\.namespace back to calico-system and run `pulumi up`/);
        assert.match(error.message, /docs\/install-modes\.md, "Moving Calico to another namespace"/);
        return true;
      },
    );
    assert.deepEqual(api.requests, [`GET ${CALICO_NODE_LIST_PATH}`]);
  });

  it("passes, with the inputs as given, when only its own calico-node runs or none does", async () => {
    for (const items of [[ours("kube-system")], []]) {
      api.routes = { [CALICO_NODE_LIST_PATH]: list(...items) };
      const news = inputs(manifest("kube-system"));
      assert.deepEqual(await installCheckProvider.check!(news, news), { inputs: news });
    }
  });

  it("refuses while it cannot read the cluster, naming the request and the answer", async () => {
    api.routes = { [CALICO_NODE_LIST_PATH]: { status: 500, body: { reason: "InternalError" } } };
    const news = inputs(manifest("kube-system"));
    await assert.rejects(
      installCheckProvider.check!(news, news),
      /could not list the calico-node DaemonSets .*GET \/apis\/apps\/v1\/daemonsets\?fieldSelector=metadata\.name%3Dcalico-node.*HTTP 500/,
    );
  });

  it("leaves the check to `up` for credentials that may not list DaemonSets (a read-only preview role)", async () => {
    const news = inputs(manifest("kube-system"));
    for (const status of [401, 403]) {
      api.routes = { [CALICO_NODE_LIST_PATH]: { status, body: { kind: "Status", code: status } } };
      assert.deepEqual(await installCheckProvider.check!(news, news), { inputs: news }, String(status));
    }
  });

  it("reads nothing while the kubeconfig is not known (a cluster this update creates)", async () => {
    const unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"; // @pulumi/pulumi runtime/rpc.js unknownValue
    const news = { ...manifest("kube-system"), kubeconfig: unknown };
    assert.deepEqual(await installCheckProvider.check!(news, news), { inputs: news });
    assert.deepEqual(api.requests, []);
  });

  it("changes only when an input does: what it read, or new provider code, is no change", async () => {
    const olds = { ...manifest("kube-system"), __provider: "a" };
    assert.equal((await installCheckProvider.diff!("id", olds, { ...olds, __provider: "b" })).changes, false);
    assert.equal(
      (await installCheckProvider.diff!("id", olds, { ...olds, namespace: "calico-system" })).changes,
      true,
    );
    assert.equal((await installCheckProvider.diff!("id", olds, { ...olds, adopt: true })).changes, true);
  });

  it("serializes into a step the dynamic provider host can load, which fails reaching a cluster it cannot", async () => {
    const serialized = await pulumi.runtime.serializeFunction(() => installCheckProvider, {
      allowSecrets: true,
    });
    const loaded = (
      requireFromString(serialized.text) as { handler: () => pulumi.dynamic.ResourceProvider }
    ).handler();
    const news = { ...manifest("kube-system"), kubeconfig: UNREACHABLE_KUBECONFIG };
    await assert.rejects(
      loaded.check!(news, news),
      /could not list the calico-node DaemonSets.*ECONNREFUSED/s,
    );
    const unknown = { ...news, kubeconfig: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" };
    assert.deepEqual(await loaded.check!(unknown, unknown), { inputs: unknown });
  });
});

describe("the install check in the program", () => {
  it("runs before every Calico object and the takeover, with the install's namespace and mode", async () => {
    const moved = await evaluatedWith("dev", {
      config: { "eks-calico:calico": { namespace: "calico-system", adopt: true } },
    });
    const check = one(moved, INSTALL_CHECK_TYPE, "calico-install-check");
    assert.deepEqual(
      { installer: check.inputs.installer, namespace: check.inputs.namespace, adopt: check.inputs.adopt },
      { installer: "manifest", namespace: "calico-system", adopt: true },
    );
    assert.ok(dependsOn(moved, one(moved, TAKEOVER_TYPE), check));
    assert.ok(
      dependsOn(moved, one(moved, "kubernetes:apps/v1:DaemonSet", "calico-daemonset-calico-node"), check),
    );

    const operator = await evaluatedWithOperator("dev");
    const operatorCheck = one(operator, INSTALL_CHECK_TYPE, "calico-install-check");
    assert.deepEqual(
      { installer: operatorCheck.inputs.installer, namespace: operatorCheck.inputs.namespace },
      { installer: "operator", namespace: "calico-system" },
    );
    for (const installation of ofType(operator, "kubernetes:operator.tigera.io/v1:Installation")) {
      assert.ok(dependsOn(operator, installation, operatorCheck));
    }
  });
});
