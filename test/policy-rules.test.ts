/**
 * The CrossGuard pack rule by rule: each rule catches a record broken in exactly the property it
 * checks, once, with a message that says what to change.
 */
import * as assert from "node:assert/strict";
import {
  CALICO_NODE,
  calicoNodeEverywhere,
  eksAccessEntries,
  eksControlPlaneLogging,
  eksEndpointExposure,
  eksSecretsEncryption,
  nodesEncryptedVolumes,
  nodesImdsv2,
  nodesInPrivateSubnets,
  noRemovedApis,
  noWildcardRbac,
  vpcCniNetworkPolicyOff,
} from "../policy/policies";
import type { ResourceRecord, StackEvaluation } from "../offline/engine";
import { evaluated, ofType, one } from "./helpers";
import { runPolicy } from "./policy-harness";
import {
  ADDON,
  CLUSTER_ROLE,
  CRD,
  SUBNET,
  type Inputs,
  broken,
  calicoNode,
  expectOne,
  onSubnets,
  replaced,
} from "./policy-records";

describe("policy pack: a broken record per rule, one violation each", () => {
  let dev: StackEvaluation;
  let prod: StackEvaluation;
  before(async () => {
    dev = await evaluated("dev");
    prod = await evaluated("prod");
  });

  describe("EKS", () => {
    it("eks-secrets-encryption: a cluster without encryptionConfigKeyArn", async () => {
      const eks = broken(one(dev, "eks:index:Cluster"), (i) => delete i.encryptionConfigKeyArn);
      await expectOne(
        eksSecretsEncryption,
        replaced(dev.resources, eks),
        eks.urn,
        /sets no encryptionConfigKeyArn/,
      );
    });

    it("eks-control-plane-logging: a cluster that stopped logging audit", async () => {
      const eks = broken(one(dev, "eks:index:Cluster"), (i) => {
        i.enabledClusterLogTypes = ["api", "authenticator"];
      });
      await expectOne(eksControlPlaneLogging, replaced(dev.resources, eks), eks.urn, /does not log audit \(/);
    });

    it("eks-endpoint-exposure: a cluster with the private endpoint off", async () => {
      const eks = broken(one(dev, "eks:index:Cluster"), (i) => {
        i.endpointPrivateAccess = false;
      });
      await expectOne(eksEndpointExposure, replaced(dev.resources, eks), eks.urn, /private endpoint off/);
    });

    it("eks-endpoint-exposure: prod's protected cluster opened to 0.0.0.0/0", async () => {
      const eks = broken(one(prod, "eks:index:Cluster"), (i) => {
        i.publicAccessCidrs = ["203.0.113.0/24", "0.0.0.0/0"];
      });
      assert.equal(eks.options.protect, true);
      await expectOne(
        eksEndpointExposure,
        replaced(prod.resources, eks),
        eks.urn,
        /whole internet \(203\.0\.113\.0\/24, 0\.0\.0\.0\/0\) and the cluster is protected/,
      );
    });

    it("eks-endpoint-exposure: prod's cluster with no CIDRs, which EKS opens to 0.0.0.0/0", async () => {
      const eks = broken(one(prod, "eks:index:Cluster"), (i) => delete i.publicAccessCidrs);
      await expectOne(
        eksEndpointExposure,
        replaced(prod.resources, eks),
        eks.urn,
        /exposes its public API endpoint/,
      );
    });

    it("eks-access-entries-only: a cluster back on API_AND_CONFIG_MAP", async () => {
      const eks = broken(one(dev, "eks:index:Cluster"), (i) => {
        i.authenticationMode = "API_AND_CONFIG_MAP";
      });
      await expectOne(
        eksAccessEntries,
        replaced(dev.resources, eks),
        eks.urn,
        /"API_AND_CONFIG_MAP"; set API/,
      );
    });

    it("eks-access-entries-only: a cluster mapping a role through aws-auth", async () => {
      const eks = broken(one(dev, "eks:index:Cluster"), (i) => {
        i.roleMappings = [{ roleArn: "arn:aws:iam::000000000000:role/admin", username: "admin", groups: [] }];
      });
      await expectOne(eksAccessEntries, replaced(dev.resources, eks), eks.urn, /sets roleMappings/);
    });

    it("says which rule it cannot check when a component reaches the policy with no inputs", async () => {
      const eks = broken(one(dev, "eks:index:Cluster"), (i) => {
        for (const key of Object.keys(i)) delete i[key];
      });
      await expectOne(
        eksSecretsEncryption,
        replaced(dev.resources, eks),
        eks.urn,
        /no inputs, so secrets encryption/,
      );
    });
  });

  describe("nodes", () => {
    it("nodes-private-subnets: a node group moved to a public subnet", async () => {
      const group = one(dev, "aws:eks/nodeGroup:NodeGroup");
      const moved = onSubnets(group, [one(dev, SUBNET, "network-public-us-west-2a")]);
      await expectOne(
        nodesInPrivateSubnets,
        replaced(dev.resources, moved),
        group.urn,
        /not private: network-public-us-west-2a \(no kubernetes\.io\/role\/internal-elb tag\)/,
      );
    });

    it("nodes-private-subnets: a private subnet that starts mapping public addresses", async () => {
      const subnet = broken(one(dev, SUBNET, "network-private-us-west-2b"), (i) => {
        i.mapPublicIpOnLaunch = true;
      });
      const group = one(dev, "aws:eks/nodeGroup:NodeGroup");
      await expectOne(
        nodesInPrivateSubnets,
        replaced(dev.resources, subnet),
        group.urn,
        /not private: network-private-us-west-2b \(mapPublicIpOnLaunch is true\)\.$/,
      );
    });

    it("nodes-private-subnets: without per-property dependencies, the subnets the group depends on", async () => {
      // Plain subnet ids name no resource, so only the dependency list links the group to a subnet.
      const group = one(dev, "aws:eks/nodeGroup:NodeGroup");
      const moved = onSubnets(
        group,
        [one(dev, SUBNET, "network-public-us-west-2b")],
        ["subnet-0123456789abcdef0"],
      );
      await expectOne(
        nodesInPrivateSubnets,
        replaced(dev.resources, moved),
        group.urn,
        /not private: network-public-us-west-2b/,
      );
    });

    it("nodes-private-subnets: subnet ids that come from no subnet of the stack", async () => {
      const group = one(dev, "aws:eks/nodeGroup:NodeGroup");
      const external = onSubnets(group, [], ["subnet-0123456789abcdef0"]);
      await expectOne(
        nodesInPrivateSubnets,
        replaced(dev.resources, external),
        group.urn,
        /cannot be shown to be private/,
      );
    });

    it("nodes-imdsv2: a launch template that allows IMDSv1", async () => {
      const template = broken(one(dev, "aws:ec2/launchTemplate:LaunchTemplate"), (i) => {
        i.metadataOptions = { httpEndpoint: "enabled", httpTokens: "optional", httpPutResponseHopLimit: 1 };
      });
      await expectOne(
        nodesImdsv2,
        replaced(dev.resources, template),
        template.urn,
        /httpTokens is "optional", not "required"/,
      );
    });

    it("nodes-imdsv2: a launch template with hop limit 2", async () => {
      const template = broken(one(dev, "aws:ec2/launchTemplate:LaunchTemplate"), (i) => {
        i.metadataOptions = { httpEndpoint: "enabled", httpTokens: "required", httpPutResponseHopLimit: 2 };
      });
      await expectOne(
        nodesImdsv2,
        replaced(dev.resources, template),
        template.urn,
        /httpPutResponseHopLimit is 2, not 1/,
      );
    });

    it("nodes-imdsv2: a managed node group without a launch template", async () => {
      const group = broken(one(dev, "aws:eks/nodeGroup:NodeGroup"), (i) => delete i.launchTemplate);
      await expectOne(nodesImdsv2, replaced(dev.resources, group), group.urn, /sets no launchTemplate/);
    });

    it("nodes-encrypted-volumes: a launch template with an unencrypted device, and one with none", async () => {
      const template = one(dev, "aws:ec2/launchTemplate:LaunchTemplate");
      const open = broken(template, (i) => {
        (i.blockDeviceMappings as { ebs: Inputs }[])[0].ebs.encrypted = "false";
      });
      await expectOne(nodesEncryptedVolumes, replaced(dev.resources, open), template.urn, /not encrypted/);
      const none = broken(template, (i) => delete i.blockDeviceMappings);
      await expectOne(
        nodesEncryptedVolumes,
        replaced(dev.resources, none),
        template.urn,
        /lists no blockDeviceMappings/,
      );
    });
  });

  describe("Calico", () => {
    it("calico-node-on-every-node: calico-node tolerating only one taint", async () => {
      const node = broken(calicoNode(dev), (i) => {
        const pod = (i.spec as { template: { spec: Inputs } }).template.spec;
        pod.tolerations = [{ key: "dedicated", operator: "Exists", effect: "NoSchedule" }];
      });
      await expectOne(
        calicoNodeEverywhere,
        replaced(dev.resources, node),
        node.urn,
        /does not tolerate every taint/,
      );
    });

    it("calico-node-on-every-node: calico-node without a priority class", async () => {
      const node = broken(calicoNode(dev), (i) => {
        delete (i.spec as { template: { spec: Inputs } }).template.spec.priorityClassName;
      });
      await expectOne(
        calicoNodeEverywhere,
        replaced(dev.resources, node),
        node.urn,
        /priorityClassName unset: .*system-node-critical/,
      );
    });

    it("k8s-no-wildcard-rbac: calico-node's ClusterRole granting every verb", async () => {
      const role = broken(one(dev, CLUSTER_ROLE, "calico-role-calico-node"), (i) => {
        (i.rules as { verbs: string[] }[])[0].verbs = ["*"];
      });
      await expectOne(
        noWildcardRbac,
        replaced(dev.resources, role),
        role.urn,
        /ClusterRole calico-role-calico-node grants wildcards: rules\[0\]\.verbs \["\*"\]/,
      );
    });

    it("k8s-no-wildcard-rbac: a Role on every resource's scale subresource", async () => {
      const role = broken(
        one(dev, CLUSTER_ROLE, "calico-role-calico-typha"),
        (i) => {
          i.kind = "Role";
          i.rules = [{ apiGroups: ["apps"], resources: ["*/scale"], verbs: ["get"] }];
        },
        { type: "kubernetes:rbac.authorization.k8s.io/v1:Role" },
      );
      await expectOne(
        noWildcardRbac,
        replaced(dev.resources, role),
        role.urn,
        /Role calico-role-calico-typha grants wildcards: rules\[0\]\.resources \["\*\/scale"\]/,
      );
    });

    it("k8s-no-removed-apis: calico-node on extensions/v1beta1", async () => {
      const node = calicoNode(dev);
      const old = broken(
        node,
        (i) => {
          i.apiVersion = "extensions/v1beta1";
        },
        { type: "kubernetes:extensions/v1beta1:DaemonSet" },
      );
      await expectOne(
        noRemovedApis,
        replaced(dev.resources, old, node),
        node.urn,
        /DaemonSet .* uses extensions\/v1beta1, which Kubernetes 1\.16 stopped serving; use apps\/v1/,
      );
    });

    it("k8s-no-removed-apis: a schema-less v1beta1 CRD, as upstream once shipped them", async () => {
      const crd = ofType(dev, CRD)[0];
      const old = broken(
        crd,
        (i) => {
          i.apiVersion = "apiextensions.k8s.io/v1beta1";
        },
        { type: "kubernetes:apiextensions.k8s.io/v1beta1:CustomResourceDefinition" },
      );
      await expectOne(
        noRemovedApis,
        replaced(dev.resources, old, crd),
        crd.urn,
        /Kubernetes 1\.22 stopped serving; use apiextensions\.k8s\.io\/v1/,
      );
    });
  });

  describe("VPC CNI beside Calico", () => {
    it("vpc-cni-network-policy-off-with-calico: the vpc-cni add-on's configurationValues turning it on", async () => {
      const addon = broken(one(dev, ADDON, "cluster-vpc-cni"), (i) => {
        i.configurationValues = JSON.stringify({
          env: { ANNOTATE_POD_IP: "true" },
          enableNetworkPolicy: "true",
        });
      });
      await expectOne(
        vpcCniNetworkPolicyOff,
        replaced(dev.resources, addon),
        addon.urn,
        /\(configurationValues\.enableNetworkPolicy\) while Calico enforces policy/,
      );
      const unreadable = broken(addon, (i) => {
        i.configurationValues = "enableNetworkPolicy: true";
      });
      await expectOne(
        vpcCniNetworkPolicyOff,
        replaced(dev.resources, unreadable),
        addon.urn,
        /not a JSON object/,
      );
    });

    it("vpc-cni-network-policy-off-with-calico: an eks:index:VpcCniAddon component turning it on", async () => {
      const addon = one(dev, ADDON, "cluster-vpc-cni");
      const component: ResourceRecord = {
        ...addon,
        type: "eks:index:VpcCniAddon",
        urn: addon.urn.replace("aws:eks/addon:Addon::", "eks:index:VpcCniAddon::"),
        custom: false,
        remote: true,
        inputs: { clusterName: addon.inputs.clusterName, enableNetworkPolicy: true },
      };
      await expectOne(
        vpcCniNetworkPolicyOff,
        [...dev.resources, component],
        component.urn,
        /\(enableNetworkPolicy\) while Calico enforces policy/,
      );
    });

    it("vpc-cni-network-policy-off-with-calico: the cluster's vpcCniOptions", async () => {
      const eks = broken(one(dev, "eks:index:Cluster"), (i) => {
        i.vpcCniOptions = { enableNetworkPolicy: true };
      });
      await expectOne(
        vpcCniNetworkPolicyOff,
        replaced(dev.resources, eks),
        eks.urn,
        /\(vpcCniOptions\.enableNetworkPolicy\)/,
      );
    });

    it("vpc-cni-network-policy-off-with-calico: not applicable to a stack without calico-node", async () => {
      const addon = broken(one(dev, ADDON, "cluster-vpc-cni"), (i) => {
        i.configurationValues = JSON.stringify({ enableNetworkPolicy: "true" });
      });
      const withoutCalico = replaced(dev.resources, addon).filter((r) => r.urn !== calicoNode(dev).urn);
      assert.deepEqual(await runPolicy(vpcCniNetworkPolicyOff, withoutCalico), {
        violations: [],
        notApplicable: [`no ${CALICO_NODE} DaemonSet or Tigera operator Installation in this stack`],
      });
    });
  });
});
