/**
 * The takeover step, before any Calico object is applied.
 * - `calico.adopt`: before Calico's objects are applied over those a manifest left (through the adopting
 *   provider, components/cluster/provider.ts), the fields kubectl owns in them are handed to the field
 *   manager those applies use, so each object ends up holding what this program renders and nothing else
 *   of the old manifest (managed-fields.ts says why the apply alone cannot do it).
 * - Otherwise, for the CRDs only (retained on delete, so they outlive a destroyed stack and are taken
 *   back through an upserting provider): any that exists must be this program's; its earlier
 *   deployment's managers hand their fields over. One made by something else stops the step, before
 *   anything changes, instead of being taken over silently.
 *
 * A dynamic resource: it runs in the Node.js program during `pulumi up` with the stack's kubeconfig, and
 * runs again only when the list of objects, the mode or the field manager changes (and on every deployment
 * after a destroy). It never deletes an object.
 */
import * as pulumi from "@pulumi/pulumi";
import { type Credentials, credentialsOf, kubeGetOrMissing } from "../../kubernetes/client";
import { CALICO_NODE } from "../names";
import { type ObjectRef, type TakeoverResult, objectPath, takeOver } from "./run";
import { type OpenSchema, calicoLineOfDaemonSet, keptSchemas } from "./schemas";

export type { ObjectRef, TakeoverResult } from "./run";

import { ADOPT_FIELD_MANAGER } from "./field-manager";
import { COMMON_LABELS } from "../labels";

export { ADOPT_FIELD_MANAGER, FIELD_MANAGER_ANNOTATION } from "./field-manager";

/** The dynamic resource's type token, `pulumi-nodejs:dynamic/<module>:<type>` (@pulumi/pulumi dynamic). */
export const TAKEOVER_TYPE = "pulumi-nodejs:dynamic/calico:Takeover";

export interface TakeoverInputs {
  readonly kubeconfig: string;
  readonly context?: string;
  readonly fieldManager: string;
  /** Take over objects something else made (`calico.adopt`), rather than refuse them. */
  readonly adopt: boolean;
  readonly objects: ObjectRef[];
  /** The CRDs whose spec schema this program keeps open: an existing stricter one is kept (schemas.ts). */
  readonly openSchemas: OpenSchema[];
  /** The Calico line this program installs: only schemas of this line or newer are kept. */
  readonly calicoLine: string;
}

/** What the step did, and the stricter schemas it found, by CRD name. */
export interface TakeoverOutcome {
  readonly results: TakeoverResult[];
  readonly schemas: Record<string, Record<string, unknown>>;
}

/** Named apart from any global (mocha defines `run`): a global is not captured when Pulumi serializes. */
async function runTakeover(inputs: TakeoverInputs): Promise<TakeoverOutcome> {
  const credentials = credentialsOf(inputs.kubeconfig, inputs.context);
  const results = await takeOver(credentials, inputs.objects, {
    manager: inputs.fieldManager,
    labels: COMMON_LABELS,
    adopt: inputs.adopt,
  });
  const installed = await installedCalicoLine(credentials, inputs.objects);
  return {
    results,
    schemas: await keptSchemas(credentials, inputs.openSchemas ?? [], installed, inputs.calicoLine),
  };
}

/** The Calico line of the calico-node DaemonSet among `objects` as it runs, if it exists. */
async function installedCalicoLine(credentials: Credentials, objects: readonly ObjectRef[]) {
  const ref = objects.find((o) => o.kind === "DaemonSet" && o.name === CALICO_NODE);
  if (ref === undefined) return undefined;
  return calicoLineOfDaemonSet(await kubeGetOrMissing(credentials, await objectPath(credentials, ref)));
}

/**
 * Create and update run the takeover; delete has nothing to undo (the objects stay as applied). The
 * methods call only imported functions: Pulumi serializes this object with what it references.
 */
export const takeoverProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: TakeoverInputs) {
    return { id: "takeover", outs: { ...inputs, ...(await runTakeover(inputs)) } };
  },
  diff(_id: string, olds: TakeoverInputs, news: TakeoverInputs) {
    const changes =
      olds.fieldManager !== news.fieldManager ||
      olds.adopt !== news.adopt ||
      JSON.stringify(olds.objects) !== JSON.stringify(news.objects) ||
      JSON.stringify(olds.openSchemas) !== JSON.stringify(news.openSchemas) ||
      olds.calicoLine !== news.calicoLine;
    return Promise.resolve({ changes });
  },
  async update(_id: string, _olds: TakeoverInputs, news: TakeoverInputs) {
    return { outs: { ...news, ...(await runTakeover(news)) } };
  },
};

export interface CalicoTakeoverArgs {
  /** The kubeconfig of the cluster (secret) and its context, as the Kubernetes provider has them. */
  readonly kubeconfig: pulumi.Input<string>;
  readonly context?: pulumi.Input<string>;
  /** `calico.adopt`: objects something else made are taken over; otherwise they stop the step. */
  readonly adopt: boolean;
  /** The objects about to be applied; those that exist are taken over. */
  readonly objects: ObjectRef[];
  /** The CRDs whose spec schema this program keeps open. */
  readonly openSchemas: OpenSchema[];
  /** The Calico line this program installs. */
  readonly calicoLine: string;
}

export class CalicoTakeover extends pulumi.dynamic.Resource {
  /** Per object: absent, already ours, or which kubectl managers' fields moved. */
  declare readonly results: pulumi.Output<TakeoverResult[]>;
  /** Existing schemas stricter than this program's, by CRD name: the CRDs are applied with these. */
  declare readonly schemas: pulumi.Output<Record<string, Record<string, unknown>>>;

  constructor(name: string, args: CalicoTakeoverArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      takeoverProvider,
      name,
      {
        kubeconfig: pulumi.secret(args.kubeconfig),
        context: args.context,
        fieldManager: ADOPT_FIELD_MANAGER,
        adopt: args.adopt,
        objects: args.objects,
        openSchemas: args.openSchemas,
        calicoLine: args.calicoLine,
        results: undefined,
        schemas: undefined,
      },
      opts,
      "calico",
      "Takeover",
    );
  }
}
