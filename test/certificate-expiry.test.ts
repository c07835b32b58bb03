/**
 * When Typha's certificates expire (components/calico/certificate-expiry.ts): the earliest of the CA's and
 * the leaves' ends of validity, exported as `calico.typhaCertificatesExpire`, and the warning every
 * update, preview and offline plan of the deployed stack gives under 30 days before it.
 */
import * as assert from "node:assert/strict";
import { EXPIRY_WARNING_DAYS, earliestExpiry, expiryWarning } from "../components/calico/certificate-expiry";
import { certificateNotice } from "../stacks/previous";
import { evaluatedWith, withWarnings } from "./helpers";

const NOW = new Date("2030-06-01T00:00:00Z");
const days = (n: number) => new Date(NOW.getTime() + n * 86_400_000).toISOString();

describe("Typha's certificates: when they expire", () => {
  it("is the earliest of the CA's and the leaves' ends of validity", () => {
    assert.equal(
      earliestExpiry(["2036-01-01T00:00:00Z", "2028-01-01T00:00:00Z", "2028-02-01T00:00:00Z"]),
      "2028-01-01T00:00:00Z",
    );
    assert.throws(() => earliestExpiry(["2028-01-01T00:00:00Z", "soon"]), /not a certificate expiry: "soon"/);
  });

  it(`warns under ${EXPIRY_WARNING_DAYS} days before it, and once it has passed, never before`, () => {
    assert.equal(expiryWarning(days(EXPIRY_WARNING_DAYS), NOW), undefined);
    assert.match(
      expiryWarning(days(EXPIRY_WARNING_DAYS - 1), NOW) ?? "",
      /^calico: Typha's TLS certificates expire in 29 day\(s\), at /,
    );
    assert.match(expiryWarning(days(0.5), NOW) ?? "", /expire in 1 day\(s\)/);
    assert.match(
      expiryWarning(days(-3), NOW) ?? "",
      /^calico: Typha's TLS certificates expired at .*: after that a Felix that reconnects to Typha is refused/,
    );
  });

  it("is warned from the deployed stack's last output; an output without it (the operator's null) warns nothing", () => {
    assert.match(
      certificateNotice({ calico: { typhaCertificatesExpire: days(10) } }, NOW) ?? "",
      /expire in 10 day/,
    );
    assert.equal(certificateNotice({ calico: { typhaCertificatesExpire: days(90) } }, NOW), undefined);
    assert.equal(certificateNotice({ calico: { typhaCertificatesExpire: null } }, NOW), undefined);
    assert.equal(certificateNotice({}, NOW), undefined);
  });

  it("through the program: a deployed stack whose certificates expire in 10 days plans with the warning", async () => {
    const deployed = await evaluatedWith("dev", { preview: false });
    const soon = new Date(Date.now() + 10 * 86_400_000).toISOString();
    const previousOutputs = {
      ...deployed.outputs,
      calico: { ...(deployed.outputs.calico as object), typhaCertificatesExpire: soon },
    };
    const { warnings } = await withWarnings(() => evaluatedWith("dev", { previousOutputs }));
    assert.equal(
      warnings.filter((w) => w.includes(`Typha's TLS certificates expire in`) && w.includes(soon)).length,
      1,
    );
  });
});
