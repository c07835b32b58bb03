/** `tags`: what every AWS resource is tagged with, within AWS's tag rules. */
import { z } from "zod";
import { AWS_LIMITS } from "./aws-limits";
import { described } from "./described";

// What AWS accepts in tag keys and values.
const TAG_TEXT = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;

/**
 * The most tags the program adds to one resource: pulumi:project, pulumi:stack and Name on every one, and
 * on subnets the load balancers' kubernetes.io/role tag too. A resource takes at most 50.
 */
export const RESERVED_TAG_COUNT = 4;
export const MAX_TAGS = AWS_LIMITS.tagsPerResource.value;

/** The tag keys the program adds to every resource, IAM roles included (stacks/index.ts resourceTags). */
export const PROGRAM_TAG_KEYS = ["pulumi:project", "pulumi:stack"] as const;

/**
 * Tag keys that differ only in case. EC2 keeps them apart (its Tag.Key: "Tag keys are case-sensitive",
 * botocore data/ec2/2016-11-15/service-2.json), but IAM does not for roles, which get these tags too
 * (the VPC CNI's role, components/cluster/index.ts): "Tag key values for IAM users and roles are not case
 * sensitive, but case is preserved. This means that you cannot have separate Department and department
 * tag keys" (IAM User Guide, Tagging IAM resources, Rules for tagging in IAM and AWS STS). One would
 * replace the other on the role, and every update would see a difference. A key equal to one the program
 * adds, in any case, is overwritten or replaced the same way.
 */
function checkTagKeyCase(tags: Record<string, unknown>, ctx: z.core.$RefinementCtx): void {
  const seen = new Map<string, string>(PROGRAM_TAG_KEYS.map((key) => [key, key]));
  for (const key of Object.keys(tags)) {
    const first = seen.get(key.toLowerCase());
    if (first === undefined) {
      seen.set(key.toLowerCase(), key);
      continue;
    }
    const program = (PROGRAM_TAG_KEYS as readonly string[]).includes(first);
    ctx.addIssue({
      code: "custom",
      path: [key],
      input: key,
      message: program
        ? `is the program's own ${first} tag${key === first ? "" : " in another case"}: the program sets it on every resource (IAM tag keys ignore case); remove it`
        : `differs only in case from the tag ${JSON.stringify(first)}: IAM roles, which get these tags too, do not tell tag keys apart by case, so one would replace the other; keep one spelling`,
    });
  }
}

export const tagsSchema = z
  .record(
    z
      .string()
      .min(1, { error: "tag keys must not be empty" })
      .max(AWS_LIMITS.tagKeyLength.value, {
        error: `tag keys must be at most ${AWS_LIMITS.tagKeyLength.value} characters`,
      })
      .refine((key) => !key.toLowerCase().startsWith("aws:"), {
        error: "tag keys must not start with aws: (reserved)",
      })
      .regex(TAG_TEXT, { error: "tag keys may hold letters, digits, spaces and _ . : / = + - @ only" }),
    z
      .string()
      .max(AWS_LIMITS.tagValueLength.value, {
        error: `tag values must be at most ${AWS_LIMITS.tagValueLength.value} characters`,
      })
      .regex(TAG_TEXT, { error: "tag values may hold letters, digits, spaces and _ . : / = + - @ only" }),
  )
  .superRefine(
    (tags, ctx) => {
      if (tags === null || typeof tags !== "object") return;
      checkTagKeyCase(tags, ctx);
      if (Object.keys(tags).length > MAX_TAGS - RESERVED_TAG_COUNT) {
        ctx.addIssue({
          code: "custom",
          input: tags,
          message: `must hold at most ${MAX_TAGS - RESERVED_TAG_COUNT} tags: AWS allows ${MAX_TAGS} per resource, and a subnet also gets Name, pulumi:project, pulumi:stack and its kubernetes.io/role tag`,
        });
      }
    },
    { when: () => true },
  )
  .meta(
    described(
      `Tags for every AWS resource: at most ${MAX_TAGS - RESERVED_TAG_COUNT} (AWS allows ${MAX_TAGS}; \`Name\`, \`pulumi:project\` and \`pulumi:stack\` are added, and on subnets the load balancers' \`kubernetes.io/role\` tag).`,
      "Keys and values of letters, digits, spaces or `_ . : / = + - @`, keys not starting with `aws:`.",
      "No two keys that differ only in case (IAM roles, which get the tags too, treat them as one), and none that is `pulumi:project` or `pulumi:stack` in any case (the program sets those).",
      "Nodes get them at launch, from their node group's launch template. Adding, changing or removing a tag makes a new template version, and EKS replaces every node of every node group, a few at a time, as for a version upgrade ([Upgrading Kubernetes](upgrades.md#large-node-groups)). `npm start -- --diff` says so at the template. Change tags together, in one pull request, when a roll suits.",
    ),
  );
