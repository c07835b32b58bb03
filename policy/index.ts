/**
 * The eks-calico policy pack, as `pulumi preview --policy-pack policy` runs it: Pulumi starts this file with
 * ts-node from this directory, and the pack serves the policies of policies.ts to the engine. Its
 * description is PulumiPolicy.yaml's; every policy sets its own enforcement level.
 */
import { PolicyPack } from "@pulumi/policy";
import { policies } from "./policies";

new PolicyPack("eks-calico", { policies });
