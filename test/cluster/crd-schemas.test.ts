/**
 * The crd.projectcalico.org CRDs this program renders (components/calico/crd-schemas/), deployed by the
 * real engine with the rest of Calico, for each supported Calico line: objects written as Calico's docs
 * write them are stored whole, and an object with one mistake (a misspelt field, an action that does not
 * exist, a value of the wrong type or out of range) is refused as `kubectl apply` sends it, with strict
 * field validation.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { parseAllDocuments } from "yaml";
import { planObjects } from "../../local-cluster/deploy";
import { SUPPORTED_CALICO_MINORS, supportedMinorOf } from "../../components/calico/defaults";
import { OPERATOR_CALICO_RELEASES } from "../../components/calico/operator/releases";
import { EngineCase } from "./engine-case";
import { withUpstreamDefaults } from "../upstream-crds";

const FIXTURES = path.join(__dirname, "..", "fixtures", "crd-objects");

interface Fixture {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
}

function fixtures(file: string): Fixture[] {
  return parseAllDocuments(fs.readFileSync(path.join(FIXTURES, file), "utf8"))
    .map((d) => d.toJS() as Fixture | null)
    .filter((o): o is Fixture => o !== null);
}

/** The newest recorded release of a supported line. */
function releaseOf(minor: string): string {
  const versions = OPERATOR_CALICO_RELEASES.filter((v) => supportedMinorOf(v) === minor);
  assert.ok(versions.length > 0, `no release of ${minor}`);
  return versions.sort((a, b) => a.localeCompare(b, undefined, { numeric: true })).at(-1) as string;
}

describe("Calico's CRD schemas on a real API server", function () {
  this.timeout(20 * 60_000);

  it(`${SUPPORTED_CALICO_MINORS.map(releaseOf).join(", then ")}: the API server stores good objects whole and refuses each mistake`, async function () {
    const [first] = SUPPORTED_CALICO_MINORS.map(releaseOf);
    const c = await EngineCase.start("Calico's CRDs", {
      stack: "dev",
      config: { "eks-calico:calico.version": first },
    });
    const cluster = c.cluster;
    try {
      for (const minor of SUPPORTED_CALICO_MINORS) {
        const version = releaseOf(minor);
        // Deployed, each line as an upgrade of the one before: the API server accepted every CRD (a schema
        // that is not structural is refused).
        await c.up(version === first ? `${version}, first up` : `upgrade to ${version}`, {
          "eks-calico:calico.version": version,
        });
        const crds = planObjects(await c.plan()).filter((o) => o.object.kind === "CustomResourceDefinition");

        // Sent as JSON: kubectl reads YAML 1.1, where an unquoted `yes` would arrive as a boolean.
        const changed: string[] = [];
        for (const good of fixtures("good.yaml")) {
          const applied = cluster.kubectl(["apply", "--server-side", "-f", "-"], JSON.stringify(good));
          assert.ok(applied.ok, `${good.kind} ${good.metadata.name}: ${applied.output}`);
          const scope = good.metadata.namespace ? `namespaces/${good.metadata.namespace}/` : "";
          const plural = crds.find(
            (c) => (c.object.spec as { names: { kind: string } }).names.kind === good.kind,
          );
          assert.ok(plural, good.kind);
          const names = (plural.object.spec as { names: { plural: string } }).names;
          const stored = await cluster.api.get<Fixture>(
            `/apis/crd.projectcalico.org/v1/${scope}${names.plural}/${good.metadata.name}`,
          );
          // Nothing pruned (a field the schema does not declare would be dropped silently), and only
          // upstream's defaults added.
          const expected = withUpstreamDefaults(minor, good.kind, good.spec);
          if (!isDeepStrictEqual(stored.spec, expected))
            changed.push(`${good.kind} ${good.metadata.name}: ${JSON.stringify(stored.spec)}`);
        }
        assert.deepEqual(changed, [], "good objects are stored as written");

        const accepted: string[] = [];
        let refusedCount = 0;
        for (const bad of fixtures("bad.yaml")) {
          const line = bad.metadata.annotations?.["eks-calico.test/refused-on-line"];
          const refusedHere = line === undefined || line === minor;
          const result = cluster.kubectl(["apply", "--server-side", "-f", "-"], JSON.stringify(bad));
          const why = bad.metadata.annotations?.["eks-calico.test/refused-because"] ?? "?";
          if (refusedHere && result.ok) accepted.push(`${bad.kind} ${bad.metadata.name} (${why})`);
          if (!refusedHere && !result.ok)
            accepted.push(`${bad.kind} ${bad.metadata.name}, valid on ${minor}: ${result.output}`);
          if (refusedHere) refusedCount += 1;
          if (result.ok) cluster.kubectl(["delete", "-f", "-"], JSON.stringify(bad));
        }
        assert.deepEqual(
          accepted,
          [],
          "each object with a mistake is refused, only on the lines it is wrong for",
        );
        assert.ok(refusedCount >= 10, `${refusedCount} refusals checked`);
      }
    } finally {
      await c.stop();
    }
  });
});
