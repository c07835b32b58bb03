/** `tags`: what every AWS resource is tagged with, within AWS's tag rules. */
import { z } from "zod";

// What AWS accepts in tag keys and values.
const TAG_TEXT = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;

/**
 * The most tags the program adds to one resource: pulumi:project, pulumi:stack and Name on every one, and
 * on subnets the load balancers' kubernetes.io/role tag too. A resource takes at most 50.
 */
export const RESERVED_TAG_COUNT = 4;
export const MAX_TAGS = 50;

export const tagsSchema = z
  .record(
    z
      .string()
      .min(1, { error: "tag keys must not be empty" })
      .max(128, { error: "tag keys must be at most 128 characters" })
      .refine((key) => !key.toLowerCase().startsWith("aws:"), {
        error: "tag keys must not start with aws: (reserved)",
      })
      .regex(TAG_TEXT, { error: "tag keys may hold letters, digits, spaces and _ . : / = + - @ only" }),
    z
      .string()
      .max(256, { error: "tag values must be at most 256 characters" })
      .regex(TAG_TEXT, { error: "tag values may hold letters, digits, spaces and _ . : / = + - @ only" }),
  )
  .superRefine(
    (tags, ctx) => {
      if (
        tags !== null &&
        typeof tags === "object" &&
        Object.keys(tags).length > MAX_TAGS - RESERVED_TAG_COUNT
      ) {
        ctx.addIssue({
          code: "custom",
          input: tags,
          message: `must hold at most ${MAX_TAGS - RESERVED_TAG_COUNT} tags: AWS allows ${MAX_TAGS} per resource, and a subnet also gets Name, pulumi:project, pulumi:stack and its kubernetes.io/role tag`,
        });
      }
    },
    { when: () => true },
  );
