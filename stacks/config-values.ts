/**
 * Config values as the Pulumi CLI hands them to a program: every value a string, structured ones as JSON,
 * plain strings unquoted. Decoded here for the program (stacks/index.ts) and for the tools that read a
 * stack file without running it (offline/config.ts, offline/stack-runners.ts).
 */

/** One config value decoded: JSON where it parses, else the plain string; undefined stays undefined. */
export function decodeConfigValue(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Plain strings arrive unquoted.
    return text;
  }
}

/** The keys of `namespace` (`eks-calico:network` → `network`) in fully qualified `values`, decoded. */
export function namespaceValues(
  values: Readonly<Record<string, string>>,
  namespace: string,
): Record<string, unknown> {
  const prefix = `${namespace}:`;
  return Object.fromEntries(
    Object.entries(values)
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, text]) => [key.slice(prefix.length), decodeConfigValue(text)]),
  );
}
