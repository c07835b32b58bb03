/**
 * A dynamic provider for a step that reads the cluster during `pulumi up` and stops the update by
 * throwing: the Typha retirement (typha-retirement.ts), the network-policy agent's hand-over and the
 * aws-node check (components/existing-cluster/). Its outputs are its inputs and what the check found;
 * nothing to do on delete.
 *
 * Its diff decides whether the step runs (the engine calls it in every preview and update): when an input
 * changed, or when `pending` reads the cluster and finds work for it (something left to retire, a setting
 * edited since). A step with nothing to do is unchanged, so `pulumi preview --expect-no-changes` (the
 * daily drift check, .github/workflows/drift.yml) passes on a cluster that did not move and fails on one
 * that did. A cluster that cannot be read counts as pending: the update then runs the check, which reports
 * why.
 */
import type * as pulumi from "@pulumi/pulumi";

/**
 * Whether the program changed an input: each of `news` against the same key of `olds` (which may also
 * hold outputs), as JSON, so that the order the engine returns keys in does not count.
 */
export function inputsChanged(olds: object, news: object): boolean {
  const old = olds as Record<string, unknown>;
  return Object.entries(news).some(([key, value]) => JSON.stringify(value) !== JSON.stringify(old[key]));
}

/**
 * The step's outputs: its inputs and what the check found, as JSON holds them. The dynamic provider host
 * sends outputs as a protobuf Struct (@pulumi/pulumi cmd/dynamic-provider, Struct.fromJavaScript), which
 * refuses an undefined value ("Unexpected struct type."): a finding left undefined would fail the step.
 */
async function outputsOf<I extends object, O extends object>(
  inputs: I,
  check: (inputs: I) => Promise<O>,
): Promise<I & O> {
  return JSON.parse(JSON.stringify({ ...inputs, ...(await check(inputs)) })) as I & O;
}

export function checkingStep<I extends object, O extends object>(
  id: string,
  check: (inputs: I) => Promise<O>,
  pending: (inputs: I) => Promise<boolean>,
): pulumi.dynamic.ResourceProvider {
  return {
    async create(inputs: I) {
      return { id, outs: await outputsOf(inputs, check) };
    },
    async diff(_id: string, olds: I & O, news: I) {
      // Outputs are not in `news`; an input the program changed is.
      if (inputsChanged(olds, news)) return { changes: true };
      try {
        return { changes: await pending(news) };
      } catch {
        return { changes: true };
      }
    },
    async update(_id: string, _olds: I, news: I) {
      return { outs: await outputsOf(news, check) };
    },
  };
}
