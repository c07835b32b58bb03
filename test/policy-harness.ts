/**
 * Runs the CrossGuard policies of policy/ over the offline engine's records, two ways:
 *
 * - in process, calling each policy as @pulumi/policy's server does (server.js): a resource policy once per
 *   resource with its inputs, options and provider; a stack policy once with every resource linked to its
 *   parent, dependencies and per-property dependencies. Violations are collected instead of sent;
 * - through the real policy server, started the way `pulumi preview --policy-pack policy` starts it
 *   (the CLI's pulumi-analyzer-policy script resolves @pulumi/pulumi/cmd/run-policy-pack from the pack's
 *   directory and runs it there) and called over gRPC like the engine calls it.
 *
 * What the offline records cannot give exactly as a real preview would:
 * - stack policies get each resource's inputs as props; Pulumi passes outputs. They are the same for the
 *   custom resources the stack policies read (a preview echoes their inputs), not for components;
 * - per-property dependencies are the ones the SDK sent the engine; a resource passed by reference (a
 *   node group's `cluster`) is recorded as its URN in the value instead.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import type {
  PolicyProviderResource,
  PolicyResource,
  PolicyResourceOptions,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";
import { AnalyzerClient } from "@pulumi/pulumi/proto/analyzer_grpc_pb";
import {
  AnalyzeRequest,
  AnalyzeStackRequest,
  AnalyzerInfo,
  AnalyzerPropertyDependencies,
  AnalyzerResource,
  AnalyzerResourceOptions,
  type AnalyzeResponse,
} from "@pulumi/pulumi/proto/analyzer_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { PROJECT_ROOT, type ResourceRecord } from "../offline/engine";

export type Policy = ResourceValidationPolicy | StackValidationPolicy;

export interface Violation {
  policy: string;
  message: string;
  /** The resource reported; a stack policy may report the stack as a whole (none). */
  urn?: string;
}

export interface PolicyRun {
  violations: Violation[];
  /** Reasons given through `notApplicable`. */
  notApplicable: string[];
}

/** Policy config by policy name, as `--policy-pack-config` would give it. */
export type PackConfig = Record<string, Record<string, unknown>>;

class NotApplicable extends Error {}

function notApplicable(reason?: string): never {
  throw new NotApplicable(reason ?? "");
}

/** Go durations as Pulumi writes customTimeouts ("10m", "1h30m") in seconds. */
function seconds(duration: string | undefined): number {
  return [...(duration ?? "").matchAll(/(\d+(?:\.\d+)?)(h|m|s)/g)].reduce(
    (sum, [, amount, unit]) => sum + Number(amount) * { h: 3600, m: 60, s: 1 }[unit as "h" | "m" | "s"],
    0,
  );
}

/** The options @pulumi/policy passes a policy: what the analyzer protocol carries, nothing more. */
export function policyOptions(record: ResourceRecord): PolicyResourceOptions {
  const timeouts = record.options.customTimeouts;
  return {
    protect: record.options.protect,
    ignoreChanges: [...record.options.ignoreChanges],
    ...(record.options.deleteBeforeReplace ? { deleteBeforeReplace: true } : {}),
    aliases: [],
    customTimeouts: {
      createSeconds: seconds(timeouts?.create),
      updateSeconds: seconds(timeouts?.update),
      deleteSeconds: seconds(timeouts?.delete),
    },
    additionalSecretOutputs: [],
    ...(record.parent === undefined ? {} : { parent: record.parent }),
  };
}

/** `isType` as the server answers it: the class's Pulumi type token against the resource's type. */
function isTypeOf(type: string, resourceClass: unknown): boolean {
  const token = (resourceClass as { __pulumiType?: unknown } | undefined)?.__pulumiType;
  return token === type;
}

/** The explicit provider of `record`, as the server describes it to a policy. */
function providerOf(
  record: ResourceRecord,
  byUrn: ReadonlyMap<string, ResourceRecord>,
): PolicyProviderResource | undefined {
  const provider = record.provider === undefined ? undefined : byUrn.get(record.provider);
  return (
    provider && {
      type: provider.type,
      props: structuredClone(provider.inputs),
      urn: provider.urn,
      name: provider.name,
    }
  );
}

/** What the server tells a policy about one resource, for resource and stack policies alike. */
function policyView(record: ResourceRecord, byUrn: ReadonlyMap<string, ResourceRecord>) {
  const props = structuredClone(record.inputs);
  const provider = providerOf(record, byUrn);
  return {
    type: record.type,
    props,
    urn: record.urn,
    name: record.name,
    opts: policyOptions(record),
    ...(provider === undefined ? {} : { provider }),
    isType: (resourceClass: unknown) => isTypeOf(record.type, resourceClass),
    /** What `asType` returns: the props for the record's own type, else undefined. */
    propsIfType: (resourceClass: unknown) => (isTypeOf(record.type, resourceClass) ? props : undefined),
  };
}

function resourceArgs(
  record: ResourceRecord,
  byUrn: ReadonlyMap<string, ResourceRecord>,
  config: Record<string, unknown>,
): ResourceValidationArgs {
  const { propsIfType, ...view } = policyView(record, byUrn);
  return {
    ...view,
    asType: propsIfType as ResourceValidationArgs["asType"],
    stackTags: new Map(),
    getConfig: <T extends object>() => config as T,
    notApplicable,
  };
}

/** Every record as a PolicyResource, linked to its parent and dependencies as the server links them. */
function stackResources(records: readonly ResourceRecord[]): PolicyResource[] {
  const byUrn = new Map(records.map((r) => [r.urn, r]));
  const resources = new Map<string, PolicyResource>(
    records.map((record) => {
      const { propsIfType, ...view } = policyView(record, byUrn);
      const resource: PolicyResource = {
        ...view,
        asType: propsIfType as PolicyResource["asType"],
        dependencies: [],
        propertyDependencies: {},
      };
      return [record.urn, resource];
    }),
  );
  const resolve = (urns: string[]) =>
    urns.map((urn) => resources.get(urn)).filter((r): r is PolicyResource => r !== undefined);
  for (const record of records) {
    const resource = resources.get(record.urn) as PolicyResource;
    const parent = record.parent === undefined ? undefined : resources.get(record.parent);
    if (parent !== undefined) resource.parent = parent;
    resource.dependencies = resolve(record.dependencies);
    for (const [key, urns] of Object.entries(record.propertyDependencies)) {
      resource.propertyDependencies[key] = resolve(urns);
    }
  }
  return [...resources.values()];
}

/** Runs one policy over the records, as the server runs it for a preview. */
export async function runPolicy(
  policy: Policy,
  records: readonly ResourceRecord[],
  config: Record<string, unknown> = {},
): Promise<PolicyRun> {
  const run: PolicyRun = { violations: [], notApplicable: [] };
  const attempt = async (validation: () => Promise<void> | void) => {
    try {
      await validation();
    } catch (error) {
      if (!(error instanceof NotApplicable)) throw error;
      run.notApplicable.push(error.message);
    }
  };
  if ("validateStack" in policy) {
    const args: StackValidationArgs = {
      resources: stackResources(records),
      stackTags: new Map(),
      getConfig: <T extends object>() => config as T,
      notApplicable,
    };
    await attempt(() =>
      policy.validateStack(args, (message, urn) =>
        run.violations.push({ policy: policy.name, message, ...(urn === undefined ? {} : { urn }) }),
      ),
    );
    return run;
  }
  const validations = [policy.validateResource ?? []].flat();
  const byUrn = new Map(records.map((r) => [r.urn, r]));
  for (const record of records) {
    for (const validate of validations) {
      // A resource policy's violation is always about the resource validated (the urn argument is ignored).
      await attempt(() =>
        validate(resourceArgs(record, byUrn, config), (message) =>
          run.violations.push({ policy: policy.name, message, urn: record.urn }),
        ),
      );
    }
  }
  return run;
}

/** Runs every policy; violations in policy order. */
export async function runPack(
  policies: readonly Policy[],
  records: readonly ResourceRecord[],
  config: PackConfig = {},
): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const policy of policies) {
    violations.push(...(await runPolicy(policy, records, config[policy.name])).violations);
  }
  return violations;
}

// ----------------------------------------------------------------------------- the real policy server

export const POLICY_DIR = path.join(PROJECT_ROOT, "policy");

/** The script pulumi-analyzer-policy runs, resolved from the pack's directory as the CLI does. */
export function runPolicyPackScript(): string {
  return require.resolve("@pulumi/pulumi/cmd/run-policy-pack", { paths: [POLICY_DIR] });
}

function toAnalyzerResource(record: ResourceRecord) {
  const options = new AnalyzerResourceOptions()
    .setProtect(record.options.protect)
    .setIgnorechangesList(record.options.ignoreChanges)
    .setDeletebeforereplace(record.options.deleteBeforeReplace)
    .setDeletebeforereplacedefined(record.options.deleteBeforeReplace)
    .setParent(record.parent ?? "");
  const resource = new AnalyzerResource()
    .setType(record.type)
    .setName(record.name)
    .setUrn(record.urn)
    .setProperties(Struct.fromJavaScript(record.inputs as Record<string, never>))
    .setOptions(options)
    .setParent(record.parent ?? "")
    .setDependenciesList(record.dependencies);
  for (const [key, urns] of Object.entries(record.propertyDependencies)) {
    resource.getPropertydependenciesMap().set(key, new AnalyzerPropertyDependencies().setUrnsList(urns));
  }
  return resource;
}

/**
 * The server's diagnostics as violations. Their message is the policy's description, a newline and what the
 * policy reported; a resource policy's diagnostic carries no URN (the engine attributes it to `urn`).
 */
function diagnostics(response: AnalyzeResponse, urn?: string): Violation[] {
  return response.getDiagnosticsList().map((d) => ({
    policy: d.getPolicyname(),
    message: d.getMessage(),
    ...((d.getUrn() || urn) === undefined ? {} : { urn: d.getUrn() || urn }),
  }));
}

function unary<Request, Response>(
  call: (
    request: Request,
    callback: (error: grpc.ServiceError | null, response: Response) => void,
  ) => unknown,
  request: Request,
): Promise<Response> {
  return new Promise((resolve, reject) =>
    call(request, (error, response) => (error === null ? resolve(response) : reject(error))),
  );
}

/** The pack listens after about 6 s on two cores, well within mocha's timeout (.mocharc.js). */
const START_TIMEOUT_MS = 45_000;

/** The pack running in its own process, as the engine talks to it. */
export class PolicyServer {
  private constructor(
    private readonly child: ChildProcess,
    private readonly client: AnalyzerClient,
  ) {}

  /** Starts `policy/` with run-policy-pack in the pack's directory; resolves once it listens. */
  static async start(): Promise<PolicyServer> {
    // The first argument is the engine's address; the pack does not call the engine back.
    const child = spawn(process.execPath, [runPolicyPackScript(), "127.0.0.1:0", "."], {
      cwd: POLICY_DIR,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const port = await new Promise<string>((resolve, reject) => {
      let stdout = "";
      // A pack that never listens (a type error it cannot report without an engine) must not outlive the run.
      const timer = setTimeout(() => {
        child.kill();
        reject(new Error(`policy pack did not listen within ${START_TIMEOUT_MS} ms: ${stderr}${stdout}`));
      }, START_TIMEOUT_MS);
      child.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        const line = /^(\d+)\s*$/m.exec(stdout);
        if (line !== null) {
          clearTimeout(timer);
          resolve(line[1]);
        }
      });
      child.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`policy pack exited with ${code}: ${stderr}${stdout}`));
      });
    });
    const client = new AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    return new PolicyServer(child, client);
  }

  async info(): Promise<AnalyzerInfo> {
    return unary(this.client.getAnalyzerInfo.bind(this.client), new Empty());
  }

  /** `Analyze` of each record (a resource policy's view), violations in record order. */
  async analyze(records: readonly ResourceRecord[]): Promise<Violation[]> {
    const violations: Violation[] = [];
    for (const record of records) {
      const resource = toAnalyzerResource(record);
      const request = new AnalyzeRequest()
        .setType(resource.getType())
        .setName(resource.getName())
        .setUrn(resource.getUrn())
        .setProperties(resource.getProperties())
        .setOptions(resource.getOptions());
      violations.push(
        ...diagnostics(await unary(this.client.analyze.bind(this.client), request), record.urn),
      );
    }
    return violations;
  }

  /** `AnalyzeStack` of all records (the stack policies' view). */
  async analyzeStack(records: readonly ResourceRecord[]): Promise<Violation[]> {
    const request = new AnalyzeStackRequest().setResourcesList(records.map((r) => toAnalyzerResource(r)));
    return diagnostics(await unary(this.client.analyzeStack.bind(this.client), request));
  }

  stop(): void {
    this.client.close();
    this.child.kill();
  }
}
