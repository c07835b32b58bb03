/**
 * The line check (components/calico/line-check.ts): a change of Calico line refuses while the cluster
 * holds policies the new line does not enforce, or Calico policies the new line puts in another tier,
 * naming each, in the preview's diff and in the update; an answer it cannot read fails the preview; the
 * kinds each line enforces are held to what Felix's syncer lists upstream.
 */
import * as assert from "node:assert/strict";
import { lineCheckProvider, type LineCheckInputs } from "../components/calico/line-check";
import { LINE_POLICY_NOTES, lineRefusal, unenforcedPolicyKinds } from "../components/calico/line-policies";
import { KUBERNETES_POLICY_CRD_KINDS } from "../components/calico/crds";
import { SUPPORTED_CALICO_MINORS, type CalicoMinor } from "../components/calico/defaults";
import { loadedProvider } from "./cluster/takeover-step";
import { FakeApiServer } from "./fake-api-server";
import { evaluatedWith, stackValue, withWarnings } from "./helpers";
import syncer from "./fixtures/felix-syncer-policy-kinds.json";

/** The kinds Felix's syncer lists on `line`, upstream: "KindKubernetesAdminNetworkPolicy" -> "AdminNetworkPolicy". */
const listedUpstream = (line: CalicoMinor) => syncer[line].map((k) => k.replace(/^KindKubernetes/, ""));

describe("the policy kinds of each Calico line", () => {
  it("are the kinds Felix's syncer lists upstream", () => {
    for (const line of SUPPORTED_CALICO_MINORS) {
      assert.deepEqual(
        KUBERNETES_POLICY_CRD_KINDS[line].map((k) => k.kind),
        listedUpstream(line),
        line,
      );
    }
  });

  it("a line does not enforce what another line's syncer lists and its own does not", () => {
    for (const line of SUPPORTED_CALICO_MINORS) {
      const others = SUPPORTED_CALICO_MINORS.filter((l) => l !== line).flatMap(listedUpstream);
      const expected = [...new Set(others.filter((k) => !listedUpstream(line).includes(k)))];
      assert.deepEqual(
        unenforcedPolicyKinds(line).map((k) => k.kind),
        expected,
        line,
      );
    }
    assert.deepEqual(
      unenforcedPolicyKinds("3.32").map((k) => `${k.group}/${k.version}/${k.plural}`),
      [
        "policy.networking.k8s.io/v1alpha1/adminnetworkpolicies",
        "policy.networking.k8s.io/v1alpha1/baselineadminnetworkpolicies",
      ],
    );
  });

  it("each line's refusal cites its source and names the rewrite", () => {
    assert.match(LINE_POLICY_NOTES["3.32"].source, /v3\.32\.0-release-notes\.md/);
    const text = lineRefusal("3.32", [
      { kind: "AdminNetworkPolicy", name: "deny-egress" },
      { kind: "BaselineAdminNetworkPolicy", name: "default" },
    ]);
    assert.match(
      text,
      /^calico\.version: Calico v3\.32 does not enforce AdminNetworkPolicy or BaselineAdminNetworkPolicy, and the cluster has 2/,
    );
    assert.match(text, /\n {2}- AdminNetworkPolicy deny-egress\n {2}- BaselineAdminNetworkPolicy default\n/);
    assert.match(text, /Rewrite each as a ClusterNetworkPolicy/);
    assert.match(text, /kubectl get adminnetworkpolicies,baselineadminnetworkpolicies -o yaml/);
    assert.match(text, /Nothing was changed/);
  });
});

describe("the line check step", function () {
  let api: FakeApiServer;
  before(async () => (api = await FakeApiServer.start()));
  after(() => api.stop());
  beforeEach(() => {
    api.routes = {};
    api.firstAnswers = {};
    api.requests.length = 0;
  });

  const inputs = (version: string, installer: "manifest" | "operator" = "manifest"): LineCheckInputs => {
    const line = version.startsWith("v3.32") ? "3.32" : "3.31";
    return { kubeconfig: api.kubeconfig(), line, kinds: unenforcedPolicyKinds(line), installer };
  };
  const anp = "/apis/policy.networking.k8s.io/v1alpha1/adminnetworkpolicies";
  const banp = "/apis/policy.networking.k8s.io/v1alpha1/baselineadminnetworkpolicies";
  const cnp = "/apis/policy.networking.k8s.io/v1alpha2/clusternetworkpolicies";
  const list = (...names: string[]) => ({
    status: 200,
    body: { items: names.map((name) => ({ metadata: { name } })) },
  });
  /** The reads of the upstream policy kinds (the Calico ones come after them). */
  const adminReads = () => api.requests.filter((r) => r.includes("/policy.networking.k8s.io/"));
  const calico = (plural: string) => `/apis/crd.projectcalico.org/v1/${plural}`;
  const [np, gnp, snp, sgnp] = [
    "networkpolicies",
    "globalnetworkpolicies",
    "stagednetworkpolicies",
    "stagedglobalnetworkpolicies",
  ].map(calico);
  /** Calico policies as kubectl writes them: a name, a namespace for the namespaced kinds, maybe a tier. */
  const policies = (...items: { name: string; namespace?: string; tier?: string }[]) => ({
    status: 200,
    body: {
      items: items.map(({ name, namespace, tier }) => ({
        metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
        spec: tier === undefined ? {} : { tier },
      })),
    },
  });
  const forbidden = (path: string) => ({
    status: 403,
    body: {
      kind: "Status",
      status: "Failure",
      message: `${path.split("/").pop()} is forbidden: User "pr-preview" cannot list resource`,
      reason: "Forbidden",
      code: 403,
    },
  });

  it("an upgrade to v3.32 is refused in the preview's diff, naming every admin policy", async () => {
    api.routes = { [anp]: list("deny-egress", "pin-dns"), [banp]: list() };
    await assert.rejects(
      lineCheckProvider.diff!("line-check", inputs("v3.31.7"), inputs("v3.32.1")),
      (error: Error) =>
        /AdminNetworkPolicy deny-egress\n {2}- AdminNetworkPolicy pin-dns\n/.test(error.message) &&
        !error.message.includes("- BaselineAdminNetworkPolicy"),
    );
    assert.deepEqual(adminReads(), [`GET ${anp}`, `GET ${banp}`]);
  });

  it("and in the update, before it reports anything applied", async () => {
    api.routes = { [banp]: list("default") };
    await assert.rejects(
      lineCheckProvider.update!("line-check", inputs("v3.31.7"), inputs("v3.32.1")),
      /BaselineAdminNetworkPolicy default/,
    );
  });

  it("a rollback to v3.31 is refused while a ClusterNetworkPolicy exists", async () => {
    api.routes = { [cnp]: list("tenants"), [anp]: list("not-looked-at") };
    await assert.rejects(
      lineCheckProvider.diff!("line-check", inputs("v3.32.1"), inputs("v3.31.7")),
      (error: Error) =>
        /ClusterNetworkPolicy tenants/.test(error.message) &&
        /AdminNetworkPolicy or BaselineAdminNetworkPolicy/.test(error.message),
    );
    assert.deepEqual(adminReads(), [`GET ${cnp}`]);
  });

  it("passes when none exists or the kind's CRD is absent (404 from a real API server)", async () => {
    api.routes = { [anp]: list() };
    assert.deepEqual(await lineCheckProvider.diff!("line-check", inputs("v3.31.7"), inputs("v3.32.1")), {
      changes: true,
    });
    const created = await lineCheckProvider.create(inputs("v3.32.1"));
    assert.equal(created.id, "line-check");
  });

  it("waits out a kind whose storage is (re)initializing (429 with retryAfterSeconds), then reads it", async () => {
    const initializing = {
      status: 429,
      body: {
        kind: "Status",
        status: "Failure",
        message: "storage is (re)initializing",
        reason: "TooManyRequests",
        details: { retryAfterSeconds: 1 },
        code: 429,
      },
    };
    api.firstAnswers = { [anp]: [initializing] };
    api.routes = { [anp]: list("deny-egress") };
    await assert.rejects(lineCheckProvider.create(inputs("v3.32.1")), /AdminNetworkPolicy deny-egress/);
    assert.deepEqual(
      api.requests.filter((r) => r === `GET ${anp}`),
      [`GET ${anp}`, `GET ${anp}`],
    );
  });

  it("a first install on a line checks too, in the preview's check and in the create", async () => {
    api.routes = { [anp]: list("left-over") };
    await assert.rejects(lineCheckProvider.check!({}, inputs("v3.32.1")), /AdminNetworkPolicy left-over/);
    await assert.rejects(lineCheckProvider.create(inputs("v3.32.1")), /AdminNetworkPolicy left-over/);
  });

  it("a deployed step's check reads nothing: its diff decides", async () => {
    api.routes = { [anp]: list("written-later") };
    const checked = await lineCheckProvider.check!(inputs("v3.32.0"), inputs("v3.32.1"));
    assert.deepEqual(checked, { inputs: inputs("v3.32.1") });
    assert.deepEqual(api.requests, []);
  });

  it("a release of the same line changes nothing and reads nothing; new credentials update it without a check", async () => {
    api.routes = { [anp]: list("written-later") };
    assert.deepEqual(await lineCheckProvider.diff!("line-check", inputs("v3.32.0"), inputs("v3.32.1")), {
      changes: false,
    });
    const rotated = { ...inputs("v3.32.1"), context: "other" };
    assert.deepEqual(await lineCheckProvider.diff!("line-check", inputs("v3.32.1"), rotated), {
      changes: true,
    });
    assert.deepEqual(await lineCheckProvider.update!("line-check", inputs("v3.32.1"), rotated), {
      outs: rotated,
    });
    assert.deepEqual(api.requests, []);
  });

  it("a cluster it cannot reach fails the preview's diff, naming the kind and the answer", async () => {
    const unreachable = { ...inputs("v3.32.1"), kubeconfig: api.kubeconfig("https://127.0.0.1:2") };
    await assert.rejects(
      lineCheckProvider.diff!("line-check", inputs("v3.31.7"), unreachable),
      /could not list AdminNetworkPolicy \(adminnetworkpolicies\.policy\.networking\.k8s\.io\): .*ECONNREFUSED/,
    );
    await assert.rejects(
      lineCheckProvider.update!("line-check", inputs("v3.31.7"), unreachable),
      /ECONNREFUSED/,
    );
  });

  describe("an answer it cannot read (only a 404 means no such kind)", () => {
    it("fails the preview's diff, naming the kind and the answer: a 403 to credentials that may not list it", async () => {
      api.routes = { [anp]: forbidden(anp), [banp]: list() };
      await assert.rejects(
        lineCheckProvider.diff!("line-check", inputs("v3.31.7"), inputs("v3.32.1")),
        (error: Error) =>
          /^calico\.version: the line check could not list AdminNetworkPolicy \(adminnetworkpolicies\.policy\.networking\.k8s\.io\): GET \/apis\/policy\.networking\.k8s\.io\/v1alpha1\/adminnetworkpolicies: HTTP 403: .*cannot list resource/.test(
            error.message,
          ) && /Nothing was changed/.test(error.message),
      );
    });

    it("a Calico policy kind too, and a server error", async () => {
      api.routes = { [gnp]: forbidden(gnp) };
      await assert.rejects(
        lineCheckProvider.diff!("line-check", inputs("v3.31.7"), inputs("v3.32.1")),
        /could not list GlobalNetworkPolicy \(globalnetworkpolicies\.crd\.projectcalico\.org\): .*HTTP 403/,
      );
      api.routes = { [banp]: { status: 500, body: { message: "etcdserver: request timed out" } } };
      await assert.rejects(
        lineCheckProvider.diff!("line-check", inputs("v3.31.7"), inputs("v3.32.1")),
        /could not list BaselineAdminNetworkPolicy .*HTTP 500: .*etcdserver: request timed out/,
      );
    });

    it("a cluster known only once the update runs (a kubeconfig the preview leaves unknown) is checked there", async () => {
      const unknown = { ...inputs("v3.32.1"), kubeconfig: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" };
      assert.deepEqual(await lineCheckProvider.diff!("line-check", inputs("v3.31.7"), unknown), {
        changes: true,
      });
      assert.deepEqual(api.requests, []);
    });
  });

  describe("Calico policies whose tier the new line reads otherwise", () => {
    it("an upgrade to v3.32 is refused in the preview's diff, naming each with its fix, beside the admin policies", async () => {
      api.routes = {
        [anp]: list("deny-egress"),
        [np]: policies(
          { name: "security.allow-dns", namespace: "apps" },
          { name: "security.kept", namespace: "apps", tier: "security" },
        ),
        [gnp]: policies({ name: "deny-all", tier: "security" }, { name: "plain" }),
      };
      await assert.rejects(
        lineCheckProvider.diff!("line-check", inputs("v3.31.7"), inputs("v3.32.1")),
        (error: Error) =>
          /^calico\.version: Calico v3\.32 does not enforce AdminNetworkPolicy, and the cluster has 1/.test(
            error.message,
          ) &&
          /- AdminNetworkPolicy deny-egress\n/.test(error.message) &&
          /\n\ncalico\.version: on Calico v3\.32, 2 Calico policies would no longer be evaluated where they are now/.test(
            error.message,
          ) &&
          /- NetworkPolicy apps\/security\.allow-dns: tier security on v3\.31, tier default on v3\.32; set spec\.tier: security\n/.test(
            error.message,
          ) &&
          /- GlobalNetworkPolicy deny-all: tier default on v3\.31, tier security on v3\.32; set spec\.tier: default\n/.test(
            error.message,
          ) &&
          !/security\.kept|plain/.test(error.message),
      );
      assert.deepEqual(
        api.requests.filter((r) => r !== "GET /version"),
        [anp, banp, np, gnp, snp, sgnp].map((path) => `GET ${path}`),
      );
    });

    it("and in the update; a staged policy counts too", async () => {
      api.routes = { [snp]: policies({ name: "ops.try-deny", namespace: "apps" }) };
      await assert.rejects(
        lineCheckProvider.update!("line-check", inputs("v3.31.7"), inputs("v3.32.1")),
        /- StagedNetworkPolicy apps\/ops\.try-deny: tier ops on v3\.31, tier default on v3\.32; set spec\.tier: ops/,
      );
    });

    it("passes once name and spec.tier agree", async () => {
      api.routes = { [np]: policies({ name: "security.allow-dns", namespace: "apps", tier: "security" }) };
      assert.deepEqual(await lineCheckProvider.diff!("line-check", inputs("v3.31.7"), inputs("v3.32.1")), {
        changes: true,
      });
    });

    it("a rollback to v3.31 is refused for a spec.tier the name does not start with", async () => {
      api.routes = { [gnp]: policies({ name: "deny-all", tier: "security" }) };
      await assert.rejects(
        lineCheckProvider.diff!("line-check", inputs("v3.32.1"), inputs("v3.31.7")),
        /- GlobalNetworkPolicy deny-all: tier security on v3\.32, tier default on v3\.31; create it again named security\.deny-all/,
      );
    });

    it("with the operator, an upgrade to v3.32 is refused while a policy of the user's is in tier allow-tigera", async () => {
      api.routes = {
        [np]: policies({ name: "allow-tigera.team-dns", namespace: "apps", tier: "allow-tigera" }),
      };
      assert.deepEqual(await lineCheckProvider.diff!("line-check", inputs("v3.31.7"), inputs("v3.32.1")), {
        changes: true,
      });
      await assert.rejects(
        lineCheckProvider.diff!("line-check", inputs("v3.31.7", "operator"), inputs("v3.32.1", "operator")),
        /- NetworkPolicy apps\/allow-tigera\.team-dns: stays in tier allow-tigera, which the Tigera operator of v3\.32 .* moved to tier calico-system; create it again as calico-system\.team-dns/,
      );
      await assert.rejects(lineCheckProvider.create(inputs("v3.32.1", "operator")), /allow-tigera\.team-dns/);
    });

    it("the same line reads nothing, whatever the cluster holds", async () => {
      api.routes = { [np]: policies({ name: "security.allow-dns", namespace: "apps" }) };
      assert.deepEqual(await lineCheckProvider.diff!("line-check", inputs("v3.32.0"), inputs("v3.32.1")), {
        changes: false,
      });
      assert.deepEqual(await lineCheckProvider.update!("line-check", inputs("v3.32.1"), inputs("v3.32.1")), {
        outs: inputs("v3.32.1"),
      });
      assert.deepEqual(api.requests, []);
    });
  });

  it("serializes into a provider the dynamic provider host can load, whose diff refuses a tier move", async () => {
    // What @pulumi/pulumi's dynamic Resource sends as __provider, and cmd/dynamic-provider loads.
    const loaded = await loadedProvider(lineCheckProvider);
    api.routes = { [np]: policies({ name: "security.allow-dns", namespace: "apps" }) };
    await assert.rejects(
      loaded.diff!("line-check", inputs("v3.31.7"), inputs("v3.32.1")),
      /NetworkPolicy apps\/security\.allow-dns: tier security on v3\.31/,
    );
    const unknown = { ...inputs("v3.32.1"), kubeconfig: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" };
    assert.deepEqual(await loaded.diff!("line-check", inputs("v3.31.7"), unknown), { changes: true });
  });
});

describe("a plan of a line change", function () {
  this.timeout(120_000);

  /** The warnings of an offline plan of dev at `version`, deployed at v3.31.7. */
  async function warningsAt(version: string): Promise<string[]> {
    const calico = (v: string) => ({
      "eks-calico:calico": { ...stackValue<object>("dev", "calico"), version: v },
    });
    const deployed = await evaluatedWith("dev", { preview: false, config: calico("v3.31.7") });
    const { warnings } = await withWarnings(() =>
      evaluatedWith("dev", { previousOutputs: deployed.outputs, config: calico(version) }),
    );
    return warnings.filter((w) => w.includes("calico-line-check"));
  }

  it("warns that the update checks the cluster, naming the kinds the new line does not enforce", async () => {
    const warnings = await warningsAt("v3.32.1");
    assert.equal(warnings.length, 1, warnings.join("\n"));
    assert.match(
      warnings[0],
      /from v3\.31\.7 to v3\.32\.1, another line: v3\.32\.1 does not enforce AdminNetworkPolicy or BaselineAdminNetworkPolicy/,
    );
    assert.match(
      warnings[0],
      /refuses while any exists, or while a Calico policy would change tier \(v3\.31 takes it from the prefix of its name, v3\.32 from its spec\.tier\)\.$/,
    );
  });

  it("says nothing for a release of the same line", async () => {
    assert.deepEqual(await warningsAt("v3.31.6"), []);
  });
});
