/**
 * The API client the dynamic providers (takeover, Typha retirement, hand-over) use runs as Pulumi runs
 * it: serialized with the provider and loaded from that text. A refused request must still reach the
 * user as an Error with the API server's answer.
 */
import * as assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import requireFromString from "require-from-string";
import { isKubeRequestError, kubeRequestError, requestUrl } from "../components/kubernetes/client";

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

describe("API request URLs", () => {
  it("keep the server URL's path, as client-go does behind a proxy", () => {
    const path = "/api/v1/namespaces/kube-system/pods?labelSelector=k8s-app%3Dcalico-node";
    assert.equal(
      requestUrl("https://rancher.example.com/k8s/clusters/c-1", path).href,
      `https://rancher.example.com/k8s/clusters/c-1${path}`,
    );
    assert.equal(
      requestUrl("https://rancher.example.com/k8s/clusters/c-1/", "/version").href,
      "https://rancher.example.com/k8s/clusters/c-1/version",
    );
    assert.equal(
      requestUrl("https://ABC.gr7.us-west-2.eks.amazonaws.com", "/version").href,
      "https://abc.gr7.us-west-2.eks.amazonaws.com/version",
    );
  });
});
