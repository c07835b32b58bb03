/**
 * A stand-in for the `tls` resource provider plugin (pulumi-resource-tls), which cannot be obtained here,
 * so the real Pulumi engine can run the program: it serves PrivateKey, SelfSignedCert, CertRequest and
 * LocallySignedCert with real keys and certificates (resources.ts). Run as a script it serves the
 * plugin's gRPC interface: `main` prints the port and keeps serving, as the engine expects of
 * `pulumi-resource-tls <engine address>`.
 */
import { main, type Provider } from "@pulumi/pulumi/provider";
import tlsPackage from "@pulumi/tls/package.json";
import * as resources from "./resources";
import type { Props } from "./resources";

/** The plugin name: the engine runs `pulumi-resource-<name>`. */
export const PLUGIN_NAME = "tls";

/** The version of @pulumi/tls installed, marked as this stand-in (a semver prerelease of it). */
export const VERSION = `${tlsPackage.version}-eks-calico-stand-in`;

/** The resource type in a URN (`urn:pulumi:stack::project::parent$type::name`). */
function typeOf(urn: string): string {
  return urn.split("::")[2]?.split("$").pop() ?? "";
}

/** A call's result as a promise, its exception as a rejection. */
function later<T>(call: () => T | Promise<T>): Promise<T> {
  return Promise.resolve().then(call);
}

/** The provider as @pulumi/pulumi/provider serves it. */
export const provider: Provider = {
  version: VERSION,
  check: (urn, _olds, news) => later(() => resources.check(typeOf(urn), news as Props)),
  diff: (_id, urn, olds, news) => later(() => resources.diff(typeOf(urn), olds as Props, news as Props)),
  create: (urn, inputs) => later(() => resources.create(typeOf(urn), inputs as Props)),
  read: (id, urn, props) => later(() => ({ id, props: resources.read(typeOf(urn), (props ?? {}) as Props) })),
  update: (_id, urn, olds, news) =>
    later(() => ({ outs: resources.update(typeOf(urn), olds as Props, news as Props) })),
  // Nothing lives outside the state: terraform-provider-tls's Delete is a no-op too.
  delete: () => Promise.resolve(),
};

if (require.main === module) {
  void main(provider, process.argv.slice(2));
}
