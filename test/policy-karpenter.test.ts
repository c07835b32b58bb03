/**
 * The CrossGuard pack's node rules on Karpenter's nodes: each EC2NodeClass is held to what a managed node
 * group is (IMDSv2, encrypted volumes, private subnets), and a class broken in one property is caught once.
 */
import * as assert from "node:assert/strict";
import { nodesEncryptedVolumes, nodesImdsv2, nodesInPrivateSubnets, policies } from "../policy/policies";
import type { ResourceRecord, StackEvaluation } from "../offline/engine";
import { evaluatedWith, one } from "./helpers";
import { runPack } from "./policy-harness";
import { type Inputs, broken, expectOne, replaced } from "./policy-records";

describe("Karpenter's nodes, held to the node groups' rules", () => {
  const NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass";
  let karpenter: StackEvaluation;
  let nodeClass: ResourceRecord;
  const spec = (i: Inputs) => i.spec as Inputs;
  before(async () => {
    karpenter = await evaluatedWith("dev", { config: { "eks-calico:karpenter.enabled": true } });
    nodeClass = one(karpenter, NODE_CLASS, "karpenter-class-general");
  });

  it("passes every policy as the stack makes it", async () => {
    assert.deepEqual(await runPack(policies, karpenter.resources), []);
  });

  it("nodes-imdsv2: an EC2NodeClass with hop limit 2", async () => {
    const hop = broken(nodeClass, (i) => {
      spec(i).metadataOptions = { httpTokens: "required", httpPutResponseHopLimit: 2 };
    });
    await expectOne(
      nodesImdsv2,
      replaced(karpenter.resources, hop),
      nodeClass.urn,
      /EC2NodeClass .*httpPutResponseHopLimit is 2, not 1/,
    );
  });

  it("nodes-encrypted-volumes: an EC2NodeClass with an unencrypted root, and one with the AMI's", async () => {
    const open = broken(nodeClass, (i) => {
      (spec(i).blockDeviceMappings as { ebs: Inputs }[])[0].ebs.encrypted = false;
    });
    await expectOne(
      nodesEncryptedVolumes,
      replaced(karpenter.resources, open),
      nodeClass.urn,
      /"\/dev\/xvda" not encrypted/,
    );
    const none = broken(nodeClass, (i) => delete spec(i).blockDeviceMappings);
    await expectOne(
      nodesEncryptedVolumes,
      replaced(karpenter.resources, none),
      nodeClass.urn,
      /lists no blockDeviceMappings/,
    );
  });

  it("nodes-private-subnets: an EC2NodeClass picking the public subnets by their tag, or by id", async () => {
    const publicly = broken(nodeClass, (i) => {
      spec(i).subnetSelectorTerms = [{ tags: { "kubernetes.io/role/elb": "1" } }];
    });
    await expectOne(
      nodesInPrivateSubnets,
      replaced(karpenter.resources, publicly),
      nodeClass.urn,
      /subnetSelectorTerms\[0\] picks network-public-us-west-2a \(no kubernetes\.io\/role\/internal-elb tag\)/,
    );
    const byId = broken(nodeClass, (i) => {
      spec(i).subnetSelectorTerms = [{ id: "subnet-0123456789abcdef0" }];
    });
    await expectOne(
      nodesInPrivateSubnets,
      replaced(karpenter.resources, byId),
      nodeClass.urn,
      /other than tags alone/,
    );
    const nowhere = broken(nodeClass, (i) => {
      spec(i).subnetSelectorTerms = [{ tags: { "karpenter.sh/discovery": "another-cluster" } }];
    });
    await expectOne(
      nodesInPrivateSubnets,
      replaced(karpenter.resources, nowhere),
      nodeClass.urn,
      /matches no subnet/,
    );
  });
});
