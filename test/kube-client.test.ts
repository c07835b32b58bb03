/**
 * The API client the dynamic providers (takeover, Typha retirement, hand-over) use runs as Pulumi runs
 * it: serialized with the provider and loaded from that text. A refused request must still reach the
 * user as an Error with the API server's answer.
 */
import * as assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import requireFromString from "require-from-string";
import { isKubeRequestError, kubeRequestError } from "../components/calico/takeover/kube-client";

describe("API errors inside a serialized dynamic provider", () => {
  it("stay Errors with the status, the body and a message", async () => {
    const provider = {
      create() {
        throw kubeRequestError(400, "Bad Request: spec.foo", "DELETE /apis/apps/v1/x");
      },
    };
    const serialized = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
    const loaded = (requireFromString(serialized.text) as { handler: () => typeof provider }).handler();
    assert.throws(
      () => loaded.create(),
      (error: unknown) => {
        assert.ok(error instanceof Error, "an Error");
        assert.equal(error.message, "DELETE /apis/apps/v1/x: HTTP 400: Bad Request: spec.foo");
        assert.ok(isKubeRequestError(error, 400));
        assert.ok(!isKubeRequestError(error, 404));
        return true;
      },
    );
  });

  it("a plain Error is not an API answer", () => {
    assert.equal(isKubeRequestError(new Error("x")), false);
    assert.equal(isKubeRequestError(Object.assign(new Error("x"), { status: "404" })), false);
  });
});
