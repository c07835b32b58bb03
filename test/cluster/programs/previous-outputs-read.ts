/**
 * A test program for the real engine: the stack reading its own last outputs (stacks/previous-outputs.ts)
 * alone, before any resource, as stacks/index.ts reads them. It exports what it read (a secret, as it
 * holds one), and two of the outputs it reads, from `eks-calico-test:run`: `clusterName` and a secret
 * `vpcCni`, so the next update shows whether it read them.
 */
import * as pulumi from "@pulumi/pulumi";
import { readPreviousOutputs } from "../../../stacks/previous-outputs";

export = async () => {
  const read = await readPreviousOutputs();
  const run = new pulumi.Config("eks-calico-test").require("run");
  return { read: pulumi.secret(read), clusterName: `cluster-${run}`, vpcCni: pulumi.secret({ run }) };
};
