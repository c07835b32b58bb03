/**
 * A dynamic provider for a step that reads the cluster during `pulumi up` and stops the update by
 * throwing: the Typha retirement (typha-retirement.ts) and the network-policy agent's hand-over
 * (components/existing-cluster/hand-over-step.ts). Its diff always reports a change, so it checks again
 * on every update, since the cluster can change between two runs; its outputs are its inputs and what the
 * check found. Nothing to do on delete.
 */
import type * as pulumi from "@pulumi/pulumi";

export function checkOnEveryUpdate<I extends object, O extends object>(
  id: string,
  check: (inputs: I) => Promise<O>,
): pulumi.dynamic.ResourceProvider {
  return {
    async create(inputs: I) {
      return { id, outs: { ...inputs, ...(await check(inputs)) } };
    },
    diff() {
      return Promise.resolve({ changes: true });
    },
    async update(_id: string, _olds: I, news: I) {
      return { outs: { ...news, ...(await check(news)) } };
    },
  };
}
