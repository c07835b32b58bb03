/**
 * A key's description, the one copy of what docs/config-reference.md says of it (scripts/config-keys.ts
 * writes it there as bullets): one line a bullet, a line starting with "- " a bullet under the one before.
 * Links are relative to docs/. zod's JSON Schema carries it as the key's `description`.
 */
export function described(...lines: string[]): { description: string } {
  return { description: lines.join("\n") };
}
