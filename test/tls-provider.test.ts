/**
 * The stand-in tls provider (tools/tls-provider): keys, a CA, a request and a leaf, checked with node's
 * crypto, ssh-keygen and the DER RFC 5280 prescribes; defaults, replacement and renewal as
 * terraform-provider-tls v4.2.1 documents them; secrets unwrapped on the way in and wrapped on the way
 * out; and the plugin answering over gRPC as the engine calls it.
 */
// @peculiar/x509 resolves its ASN.1 types through tsyringe, which needs the Reflect metadata API.
import "reflect-metadata";
import * as assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as x509 from "@peculiar/x509";
import type { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import {
  CheckRequest,
  type CheckResponse,
  CreateRequest,
  type CreateResponse,
} from "@pulumi/pulumi/proto/provider_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { VERSION, provider } from "../tools/tls-provider/index";
import { hashForState } from "../tools/tls-provider/keys";
import { type Props, check, create, diff, read, reveal, update } from "../tools/tls-provider/resources";

const ROOT = path.join(__dirname, "..");
const KEY = "tls:index/privateKey:PrivateKey";
const SELF_SIGNED = "tls:index/selfSignedCert:SelfSignedCert";
const REQUEST = "tls:index/certRequest:CertRequest";
const LOCALLY_SIGNED = "tls:index/locallySignedCert:LocallySignedCert";

/** How the engine marks secrets and unknowns (@pulumi/pulumi runtime/rpc.ts). */
const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const wrap = (value: unknown) => ({ [SIG]: SECRET, value });
const isSecret = (value: unknown) => (value as Props)[SIG] === SECRET;

/** Every certificate here is issued at this instant; the half second shows in the RFC 3339 times. */
const ISSUED = new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 500));
const HOUR = 3_600_000;
const NO_CHANGE = { changes: false, replaces: [], deleteBeforeReplace: false };

async function make(token: string, inputs: Props): Promise<{ id: string; outs: Props }> {
  const checked = check(token, inputs);
  assert.deepEqual(checked.failures, [], `${token} inputs pass check`);
  return create(token, checked.inputs, ISSUED);
}

/** A resource's outputs with secrets revealed. */
const plain = (outs: Props) => reveal(outs) as Record<string, string>;

/** A certificate extension's critical flag and its value's DER in hex. */
function extension(pem: string, oid: string): { critical: boolean; hex: string } | undefined {
  const ext = new x509.X509Certificate(pem).getExtension(oid);
  return ext ? { critical: ext.critical, hex: Buffer.from(ext.value).toString("hex") } : undefined;
}

/** RFC 5280 section 4.2.1.2 method 1: SHA-1 of the subjectPublicKey value (65 bytes for P-256). */
function p256KeyId(publicKeyPem: string): string {
  const spki = crypto.createPublicKey(publicKeyPem).export({ type: "spki", format: "der" });
  return crypto.createHash("sha1").update(spki.subarray(-65)).digest("hex");
}

/** The plugin started as the engine starts one: it prints its port, then serves. */
async function startPlugin(): Promise<{ client: ResourceProviderClient; stop: () => void }> {
  const child = spawn(
    process.execPath,
    ["-r", "ts-node/register/transpile-only", "tools/tls-provider/index.ts"],
    {
      cwd: ROOT,
      env: { ...process.env, TS_NODE_PROJECT: path.join(ROOT, "tsconfig.json") },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const port = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = /^(\d+)\s*$/m.exec(stdout);
      if (line) resolve(line[1]);
    });
    child.on("exit", (code) => reject(new Error(`the plugin exited with ${code}: ${stdout}`)));
  });
  const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  return { client, stop: () => (client.close(), child.kill()) };
}

/** One unary call, its callback as a promise. */
function unary<Response>(
  call: (callback: (error: grpc.ServiceError | null, response: Response) => void) => unknown,
): Promise<Response> {
  return new Promise((resolve, reject) =>
    call((error, response) => (error ? reject(error) : resolve(response))),
  );
}

describe("stand-in tls provider", () => {
  let caKey: Record<string, string>;
  let ca: { id: string; outs: Props };
  let leafKey: Record<string, string>;
  let request: { id: string; outs: Props };
  let leaf: { id: string; outs: Props };
  const leafInputs = (extra: Props = {}): Props => ({
    certRequestPem: plain(request.outs).certRequestPem,
    caCertPem: plain(ca.outs).certPem,
    caPrivateKeyPem: wrap(caKey.privateKeyPem),
    validityPeriodHours: 24,
    earlyRenewalHours: 2,
    allowedUses: ["digital_signature", "key_encipherment", "server_auth"],
    ...extra,
  });

  before(async () => {
    caKey = plain((await make(KEY, { algorithm: "ECDSA", ecdsaCurve: "P256" })).outs);
    ca = await make(SELF_SIGNED, {
      privateKeyPem: wrap(caKey.privateKeyPem),
      subject: { commonName: "eks-calico Typha CA", organization: "eks-calico" },
      isCaCertificate: true,
      validityPeriodHours: 48,
      allowedUses: ["cert_signing", "crl_signing", "digital_signature"],
    });
    leafKey = plain((await make(KEY, { algorithm: "ECDSA", ecdsaCurve: "P256" })).outs);
    const subject = { commonName: "typha-server" };
    request = await make(REQUEST, { privateKeyPem: wrap(leafKey.privateKeyPem), subject });
    leaf = await make(LOCALLY_SIGNED, leafInputs());
  });

  describe("PrivateKey", () => {
    it("makes an ECDSA P-256 key whose PEMs hold one key pair, the private ones secret", async () => {
      assert.match(caKey.privateKeyPem, /^-----BEGIN EC PRIVATE KEY-----\n/, "SEC 1 (MarshalECPrivateKey)");
      assert.match(caKey.privateKeyPemPkcs8, /^-----BEGIN PRIVATE KEY-----\n/);
      const privateKey = crypto.createPrivateKey(caKey.privateKeyPem);
      assert.equal(privateKey.asymmetricKeyDetails?.namedCurve, "prime256v1");
      const d = (pem: string) => crypto.createPrivateKey(pem).export({ format: "jwk" }).d;
      assert.equal(d(caKey.privateKeyPemPkcs8), d(caKey.privateKeyPem));
      const publicPem = crypto.createPublicKey(privateKey).export({ type: "spki", format: "pem" });
      assert.equal(publicPem, caKey.publicKeyPem);
      const signature = crypto.sign("sha256", Buffer.from("felix"), privateKey);
      assert.ok(crypto.verify("sha256", Buffer.from("felix"), caKey.publicKeyPem, signature));
      const { outs } = await make(KEY, { algorithm: "ED25519" });
      const secrets = ["privateKeyPem", "privateKeyPemPkcs8", "privateKeyOpenssh", "publicKeyPem"].map(
        (name) => isSecret(outs[name]),
      );
      assert.deepEqual(secrets, [true, true, true, false]);
    });

    it("leaves the OpenSSH outputs empty for P-224 (the default curve), which SSH has no format for", async () => {
      const key = plain((await make(KEY, { algorithm: "ECDSA" })).outs);
      assert.equal(crypto.createPrivateKey(key.privateKeyPem).asymmetricKeyDetails?.namedCurve, "secp224r1");
      const ssh = [key.privateKeyOpenssh, key.publicKeyOpenssh, key.publicKeyFingerprintMd5];
      assert.deepEqual([...ssh, key.publicKeyFingerprintSha256], ["", "", "", ""]);
    });

    for (const [algorithm, ecdsaCurve] of [["RSA"], ["ECDSA", "P256"], ["ED25519"]]) {
      it(`writes OpenSSH keys ssh-keygen signs with and fingerprints it agrees with (${algorithm})`, async () => {
        const missing = spawnSync("ssh-keygen", ["-?"]).error;
        assert.equal(missing, undefined, "this test needs ssh-keygen (Debian: openssh-client)");
        const key = plain((await make(KEY, { algorithm, ...(ecdsaCurve ? { ecdsaCurve } : {}) })).outs);
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tls-provider-"));
        const [id, pub, data] = ["id", "id.pub", "data"].map((name) => path.join(dir, name));
        const sshKeygen = (...args: string[]) =>
          spawnSync("ssh-keygen", args, { encoding: "utf8", input: "felix" });
        try {
          fs.writeFileSync(id, key.privateKeyOpenssh, { mode: 0o600 });
          fs.writeFileSync(pub, key.publicKeyOpenssh);
          fs.writeFileSync(data, "felix");
          fs.writeFileSync(path.join(dir, "signers"), `typha ${key.publicKeyOpenssh}`);
          // A signature by the OpenSSH private key that the published public key verifies.
          assert.equal(sshKeygen("-Y", "sign", "-f", id, "-n", "test", data).status, 0);
          const verify = ["-Y", "verify", "-f", path.join(dir, "signers"), "-I", "typha", "-n", "test"];
          assert.equal(sshKeygen(...verify, "-s", `${data}.sig`).status, 0);
          const fingerprint = (hash: string) => sshKeygen("-l", "-E", hash, "-f", pub).stdout.split(" ")[1];
          assert.equal(fingerprint("md5"), `MD5:${key.publicKeyFingerprintMd5}`);
          assert.equal(fingerprint("sha256"), key.publicKeyFingerprintSha256);
        } finally {
          fs.rmSync(dir, { recursive: true });
        }
      });
    }

    it('hashes ids as Go\'s strings.TrimSpace leaves them (SHA-1 of "abc", FIPS 180-2 appendix A.1)', () => {
      const abc = "a9993e364706816aba3e25717850c26c9cd0d89d";
      assert.equal(hashForState(Buffer.from("abc")), abc);
      assert.equal(hashForState(Buffer.from(" \tabc\r\n")), abc);
      assert.equal(hashForState(Buffer.from("\u00a0abc\u2003\u3000")), abc);
      assert.notEqual(hashForState(Buffer.from("abc\u200b")), abc, "U+200B is not white space to Go");
    });
  });

  describe("SelfSignedCert", () => {
    it("is a self-signed CA with the subject, usages and key id asked for", () => {
      const pem = plain(ca.outs).certPem;
      const cert = new crypto.X509Certificate(pem);
      assert.equal(cert.ca, true);
      assert.ok(cert.verify(crypto.createPublicKey(caKey.publicKeyPem)));
      assert.deepEqual(cert.subject.split("\n"), ["O=eks-calico", "CN=eks-calico Typha CA"]);
      assert.equal(cert.issuer, cert.subject);
      // KeyUsage BIT STRING: digitalSignature (bit 0), keyCertSign (5), cRLSign (6) = 0x86, 1 unused bit.
      assert.deepEqual(extension(pem, "2.5.29.15"), { critical: true, hex: "03020186" });
      assert.equal(extension(pem, "2.5.29.37"), undefined, "no extended key usage asked for");
      // SubjectKeyIdentifier: an OCTET STRING of 20 bytes.
      const keyId = { critical: false, hex: `0414${p256KeyId(caKey.publicKeyPem)}` };
      assert.deepEqual(extension(pem, "2.5.29.14"), keyId);
      assert.equal(plain(ca.outs).keyAlgorithm, "ECDSA");
      assert.equal(BigInt(`0x${cert.serialNumber}`).toString(10), ca.id, "the id: the serial in decimal");
    });
  });

  describe("CertRequest", () => {
    it("asks for the common name, signed with the key it names", async () => {
      const csr = new x509.Pkcs10CertificateRequest(plain(request.outs).certRequestPem);
      assert.equal(csr.subject, "CN=typha-server");
      assert.ok(await csr.verify(crypto.webcrypto));
      const spki = crypto.createPublicKey(leafKey.publicKeyPem).export({ type: "spki", format: "der" });
      assert.ok(Buffer.from(csr.publicKey.rawData).equals(spki));
    });
  });

  describe("LocallySignedCert", () => {
    it("is signed by the CA for the request's name and key, with the usages asked for", () => {
      const pem = plain(leaf.outs).certPem;
      const cert = new crypto.X509Certificate(pem);
      assert.equal(cert.ca, false);
      assert.ok(cert.checkIssued(new crypto.X509Certificate(plain(ca.outs).certPem)));
      assert.ok(cert.verify(crypto.createPublicKey(caKey.publicKeyPem)));
      assert.equal(cert.subject, "CN=typha-server");
      assert.ok(cert.checkPrivateKey(crypto.createPrivateKey(leafKey.privateKeyPem)));
      // digital_signature (bit 0) and key_encipherment (bit 2) = 0xa0, 5 unused bits.
      assert.deepEqual(extension(pem, "2.5.29.15"), { critical: true, hex: "030205a0" });
      // AuthorityKeyIdentifier [0] keyIdentifier: Go names the CA's key id.
      const authorityKeyId = { critical: false, hex: `30168014${p256KeyId(caKey.publicKeyPem)}` };
      assert.deepEqual(extension(pem, "2.5.29.35"), authorityKeyId);
      assert.equal(plain(leaf.outs).caKeyAlgorithm, "ECDSA");
    });

    it("is valid for validityPeriodHours from issue, with RFC 3339 outputs", () => {
      const cert = new crypto.X509Certificate(plain(leaf.outs).certPem);
      assert.equal(Date.parse(cert.validFrom), Date.UTC(2026, 0, 1));
      assert.equal(Date.parse(cert.validTo), Date.UTC(2026, 0, 2));
      const { validityStartTime, validityEndTime, readyForRenewal } = reveal(leaf.outs) as Props;
      assert.deepEqual(
        [validityStartTime, validityEndTime, readyForRenewal],
        ["2026-01-01T00:00:00.5Z", "2026-01-02T00:00:00.5Z", false],
      );
    });

    for (const [use, oid] of [
      ["server_auth", "1.3.6.1.5.5.7.3.1"],
      ["client_auth", "1.3.6.1.5.5.7.3.2"],
    ]) {
      it(`maps ${use} to the extended key usage ${oid} (RFC 5280 section 4.2.1.12)`, async () => {
        const cert =
          use === "server_auth" ? leaf : await make(LOCALLY_SIGNED, leafInputs({ allowedUses: [use] }));
        assert.deepEqual(new crypto.X509Certificate(plain(cert.outs).certPem).keyUsage, [oid]);
      });
    }

    it("keeps the CA key secret and refuses a CA key that is not the certificate's", async () => {
      assert.ok(isSecret(leaf.outs.caPrivateKeyPem));
      const inputs = check(LOCALLY_SIGNED, leafInputs({ caPrivateKeyPem: leafKey.privateKeyPem })).inputs;
      await assert.rejects(create(LOCALLY_SIGNED, inputs), /doesn't match parent's PublicKey/);
    });
  });

  describe("diff", () => {
    const leafDiff = (extra: Props, now = ISSUED) =>
      diff(LOCALLY_SIGNED, leaf.outs, check(LOCALLY_SIGNED, leafInputs(extra)).inputs, now);

    it("reports no change for equal inputs, defaults included", async () => {
      const { outs } = await make(KEY, { algorithm: "ECDSA", ecdsaCurve: "P256" });
      assert.deepEqual(
        diff(KEY, outs, check(KEY, { algorithm: "ECDSA", ecdsaCurve: "P256" }).inputs),
        NO_CHANGE,
      );
      assert.deepEqual(leafDiff({}), NO_CHANGE);
    });

    it("replaces on a changed ForceNew input, an unknown one included", async () => {
      const { outs } = await make(KEY, { algorithm: "ECDSA", ecdsaCurve: "P256" });
      const news = check(KEY, { algorithm: "ECDSA", ecdsaCurve: "P384" }).inputs;
      assert.deepEqual(diff(KEY, outs, news).replaces, ["ecdsaCurve"]);
      assert.deepEqual(leafDiff({ validityPeriodHours: 48 }).replaces, ["validityPeriodHours"]);
      assert.deepEqual(leafDiff({ allowedUses: ["client_auth"] }).replaces, ["allowedUses"]);
      assert.deepEqual(leafDiff({ certRequestPem: UNKNOWN }).replaces, ["certRequestPem"]);
    });

    it("updates earlyRenewalHours in place, which has no RequiresReplace", () => {
      assert.deepEqual(leafDiff({ earlyRenewalHours: 3 }), { ...NO_CHANGE, changes: true });
      const news = check(LOCALLY_SIGNED, leafInputs({ earlyRenewalHours: 3 })).inputs;
      const outs = reveal(update(LOCALLY_SIGNED, leaf.outs, news)) as Props;
      assert.equal(outs.earlyRenewalHours, 3);
      assert.equal(outs.certPem, plain(leaf.outs).certPem, "the certificate is kept");
    });

    it("replaces a certificate once it is within earlyRenewalHours of its end", () => {
      const end = Date.UTC(2026, 0, 2, 0, 0, 0, 500);
      assert.deepEqual(leafDiff({}, new Date(end - 3 * HOUR)).replaces, []);
      assert.deepEqual(leafDiff({}, new Date(end - 2 * HOUR)).replaces, ["readyForRenewal"]);
      assert.equal(read(LOCALLY_SIGNED, leaf.outs, new Date(end - 3 * HOUR)).readyForRenewal, false);
      assert.equal(read(LOCALLY_SIGNED, leaf.outs, new Date(end - HOUR)).readyForRenewal, true);
    });
  });

  describe("secret inputs", () => {
    it("are unwrapped at any depth for check, create and diff, and stay wrapped in check's inputs", async () => {
      const checked = check(SELF_SIGNED, {
        privateKeyPem: wrap(caKey.privateKeyPem),
        subject: { commonName: wrap("wrapped name") },
        validityPeriodHours: wrap(1),
        allowedUses: [wrap("server_auth")],
      });
      assert.deepEqual(checked.failures, []);
      assert.deepEqual(checked.inputs.privateKeyPem, wrap(caKey.privateKeyPem), "the engine keeps it secret");
      const { outs } = await create(SELF_SIGNED, checked.inputs, ISSUED);
      const cert = new crypto.X509Certificate(plain(outs).certPem);
      assert.equal(cert.subject, "CN=wrapped name");
      assert.deepEqual(cert.keyUsage, ["1.3.6.1.5.5.7.3.1"]);
      const unwrapped = { privateKeyPem: caKey.privateKeyPem, subject: { commonName: "wrapped name" } };
      assert.equal(diff(SELF_SIGNED, outs, { ...checked.inputs, ...unwrapped }, ISSUED).changes, false);
      assert.deepEqual(
        check(KEY, { algorithm: wrap("DSA") }).failures.map((f) => f.property),
        ["algorithm"],
      );
    });
  });

  describe("check", () => {
    it("applies terraform's defaults: rsaBits 2048, ecdsaCurve P224", () => {
      assert.deepEqual(check(KEY, { algorithm: "RSA" }), {
        inputs: { algorithm: "RSA", rsaBits: 2048, ecdsaCurve: "P224" },
        failures: [],
      });
    });

    it("refuses what terraform's validators refuse", () => {
      const failing = (token: string, inputs: Props) => check(token, inputs).failures.map((f) => f.property);
      assert.deepEqual(failing(KEY, { algorithm: "ecdsa" }), ["algorithm"], "OneOf is case-sensitive");
      assert.deepEqual(failing(KEY, { algorithm: "ECDSA", ecdsaCurve: "P192" }), ["ecdsaCurve"]);
      assert.deepEqual(
        failing(SELF_SIGNED, { privateKeyPem: caKey.privateKeyPem, validityPeriodHours: -1 }),
        ["allowedUses", "validityPeriodHours"],
      );
      const noCaKey = leafInputs({ allowedUses: ["server-auth"], caPrivateKeyPem: undefined });
      assert.deepEqual(failing(LOCALLY_SIGNED, noCaKey), ["allowedUses", "caPrivateKeyPem"]);
      assert.deepEqual(failing(REQUEST, { privateKeyPem: UNKNOWN, ipAddresses: [""] }), ["ipAddresses"]);
    });
  });

  describe("plugin", () => {
    it("reports the @pulumi/tls version in package-lock.json, marked as a stand-in", () => {
      const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as {
        packages: Record<string, { version: string }>;
      };
      assert.equal(VERSION, `${lock.packages["node_modules/@pulumi/tls"].version}-eks-calico-stand-in`);
      assert.equal(provider.version, VERSION);
    });

    it("dispatches on the type in the URN", async () => {
      const urn = `urn:pulumi:dev::eks-calico::eks-calico:calico:Calico$${KEY}::calico-typha-ca`;
      const checked = await provider.check?.(urn, {}, { algorithm: "ED25519" });
      assert.deepEqual(checked?.inputs, { algorithm: "ED25519", rsaBits: 2048, ecdsaCurve: "P224" });
      const other = "urn:pulumi:dev::eks-calico::tls:index/x:X::x";
      await assert.rejects(Promise.resolve(provider.check?.(other, {}, {})), /does not serve/);
    });

    it("serves GetPluginInfo, Check and Create over gRPC when run as a script", async () => {
      const { client, stop } = await startPlugin();
      try {
        const info = await unary<PluginInfo>((done) => client.getPluginInfo(new Empty(), done));
        assert.equal(info.getVersion(), VERSION);
        const urn = `urn:pulumi:dev::eks-calico::${KEY}::typha-ca`;
        const news = Struct.fromJavaScript({ algorithm: wrap("ECDSA"), ecdsaCurve: "P256" });
        const checkRequest = new CheckRequest().setUrn(urn).setOlds(new Struct()).setNews(news);
        const checked = (await unary<CheckResponse>((done) => client.check(checkRequest, done))).getInputs();
        const withDefault = { algorithm: wrap("ECDSA"), ecdsaCurve: "P256", rsaBits: 2048 };
        assert.deepEqual(checked?.toJavaScript(), withDefault);
        const createRequest = new CreateRequest().setUrn(urn).setProperties(checked);
        const created = await unary<CreateResponse>((done) => client.create(createRequest, done));
        assert.match(created.getId(), /^[0-9a-f]{40}$/);
        const privateKeyPem = (created.getProperties()?.toJavaScript() as Props).privateKeyPem;
        assert.ok(isSecret(privateKeyPem));
        const key = crypto.createPrivateKey((privateKeyPem as Props).value as string);
        assert.equal(key.asymmetricKeyDetails?.namedCurve, "prime256v1");
      } finally {
        stop();
      }
    });
  });
});
