/**
 * Registry keys (`calico.registry` and the others): a prefix `host[:port][/path]` that the program completes
 * with `/<image>:<tag>`. Each image it names that way must be a name the kubelet accepts, judged by the
 * grammar it parses images with (image-reference.ts); the refusal names the part of the grammar broken.
 */
import { z } from "zod";
import type { ConfigProblem } from "../problems";
import { isRecord } from "./records";
import {
  RepositoryNameTotalLengthMax,
  anchoredDomainRegexp,
  anchoredPathComponentRegexp,
  parseNormalizedNamed,
  splitDockerDomain,
} from "./image-reference";

/**
 * The highest TCP port. The grammar takes any digits after the host (`port-number := /[0-9]+/`), but the
 * pull dials the registry through Go's net package, whose LookupPort refuses a port above 65535 with
 * "invalid port" (go/src/net/lookup.go, reached from net/ipsock.go internetAddrList).
 */
export const MAX_PORT = 65535;

const GRAMMAR = "distribution/reference v0.6.0, the grammar the kubelet parses image names with";

/**
 * Which part of a prefix breaks the grammar, in words, or undefined when none can be singled out. The
 * words name the part by its place and never quote it: the value may be a secret.
 */
function prefixDetail(prefix: string, image: string): string | undefined {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(prefix)) {
    return "it starts with a scheme such as https://, which is no part of an image name (no scheme)";
  }
  if (prefix === "") return "it is empty: name a registry host";
  if (prefix.endsWith("/"))
    return `it ends with "/", and the program adds "/${image}" itself (no trailing /)`;
  const slash = prefix.indexOf("/");
  const first = slash === -1 ? prefix : prefix.slice(0, slash);
  // normalize.go splitDockerDomain: the first component is the registry host when it is localhost, holds
  // a "." or ":", or has uppercase letters; otherwise the name is a Docker Hub path.
  const isHost = first === "localhost" || /[.:]/.test(first) || first.toLowerCase() !== first;
  if (isHost) {
    const port = /^(?:\[[^\]]*\]|[^:]*):(.*)$/.exec(first)?.[1];
    if (port !== undefined && !/^[0-9]+$/.test(port)) return "its port is not a number (port-number)";
    if (!anchoredDomainRegexp.test(first)) {
      return 'its host is not a host name: each dot-separated label must be letters, digits and "-", starting and ending with a letter or digit (domain-component), or an IPv6 address in [ ]';
    }
    if (port !== undefined && Number(port) > MAX_PORT) {
      return `its port is above ${MAX_PORT}: the grammar takes any digits, but the pull dials through Go's net package, which refuses such a port`;
    }
  }
  const path = isHost ? (slash === -1 ? "" : prefix.slice(slash + 1)) : prefix;
  const components = path === "" ? [] : path.split("/");
  for (const [index, component] of components.entries()) {
    const place = `its path component ${index + 1}`;
    if (component === "") return `its path has an empty component ("//")`;
    if (component.toLowerCase() !== component) {
      return `${place} has uppercase letters: repository names must be lowercase`;
    }
    if (!anchoredPathComponentRegexp.test(component)) {
      return `${place} is not lowercase letters and digits joined by one ".", one or two "_", or "-"s (path-component)`;
    }
  }
  return undefined;
}

/** The rule `<prefix>/<image>` breaks as an image name, or undefined when the kubelet accepts it. */
export function registryPrefixProblem(prefix: string, image: string, example: string): string | undefined {
  const name = `${prefix}/${image}`;
  const parsed = parseNormalizedNamed(name);
  if (parsed.ok) {
    const port = /:([0-9]+)$/.exec(parsed.reference.domain)?.[1];
    if (port === undefined || Number(port) <= MAX_PORT) return undefined;
  }
  const rule = `must be a registry prefix host[:port][/path] such as ${example}, under which "${image}" is an image name the kubelet accepts`;
  if (!parsed.ok && /must not be more than/.test(parsed.error)) {
    const { remainder } = splitDockerDomain(name);
    return `${rule}: it makes a repository path of ${remainder.length} characters, and at most ${RepositoryNameTotalLengthMax} are allowed (${GRAMMAR})`;
  }
  const reason = prefixDetail(prefix, image) ?? "it breaks the reference grammar (invalid reference format)";
  return `${rule}: ${reason} (${GRAMMAR})`;
}

/**
 * What every registry key takes, as the config reference says it under `calico.registry` (described.ts);
 * the other registry keys point there.
 */
export const REGISTRY_RULES: readonly string[] = [
  "A prefix `host[:port][/path]` (no scheme, no trailing `/`).",
  "Each `<prefix>/<image>` the program pulls must be a name the kubelet accepts by the grammar it parses images with ([`image-reference.ts`](../stacks/schema/image-reference.ts), distribution/reference v0.6.0). In that grammar:",
  "- host labels are letters, digits and `-`;",
  `- a port is at most ${MAX_PORT} (Go's dialer refuses more);`,
  "- path components are lowercase letters and digits joined by `.`, `_`, `__` or `-`s;",
  `- a repository path is at most ${RepositoryNameTotalLengthMax} characters.`,
  "The host may not be an IPv6 address on a stack that makes its cluster, or on an existing cluster: either cluster is IPv4, and its nodes cannot reach it. A cluster reached by kubeconfig may be of either family, so its registry keys take an IPv6 host.",
];

/** A registry key's schema: the images the program pulls from it, each checked by the grammar. */
export function registrySchema(example: string, images: readonly string[], fallback: string) {
  return z
    .string({ error: `must be a registry prefix such as ${example}` })
    .superRefine((prefix, ctx) => {
      for (const image of images) {
        const problem = registryPrefixProblem(prefix, image, example);
        if (problem === undefined) continue;
        ctx.addIssue({ code: "custom", input: prefix, message: problem });
        return;
      }
    })
    .default(fallback);
}

/** Whether a registry prefix's host is an IPv6 address literal (`[2001:db8::1]:5000/calico`). */
export function hasIpv6LiteralHost(prefix: string): boolean {
  return /^\[[^\]]*\]/.test(prefix);
}

/** Every registry key under `value` (a key named `registry` or `...Registry`, at any depth) with its path. */
function registryKeys(value: unknown, path: string): [string, string][] {
  if (!isRecord(value)) return [];
  return Object.entries(value).flatMap(([key, item]): [string, string][] => {
    const at = path === "" ? key : `${path}.${key}`;
    if (/(^r|R)egistry$/.test(key)) return typeof item === "string" ? [[at, item]] : [];
    return registryKeys(item, at);
  });
}

/**
 * Registry keys whose host is an IPv6 literal, on a stack whose cluster is IPv4:
 * - a cluster the stack makes: EKS makes an IPv4 cluster unless `kubernetesNetworkConfig.ipFamily` says
 *   ipv6 ("If you don't specify a value, ipv4 is used by default", EKS API Reference,
 *   KubernetesNetworkConfigRequest, read 2026-11-28). This program never sets it, and its VPC has no IPv6
 *   block, so its nodes have IPv4 addresses only and cannot reach the registry;
 * - a cluster made elsewhere (`cluster.existing`): stacks/existing.ts refuses one whose ipFamily is not
 *   ipv4, as calico-node here enforces IPv4 only.
 * The class is every registry key, found by name, not a list of today's keys. A cluster reached by
 * kubeconfig may be of either family, which nothing reads before `up`: its registry keys are taken.
 */
export function registryAddressProblems(raw: Record<string, unknown>): ConfigProblem[] {
  const cluster = isRecord(raw.cluster) ? raw.cluster : {};
  if (cluster.kubeconfig !== undefined) return [];
  const whose =
    cluster.existing !== undefined
      ? "the cluster must be IPv4 (cluster.existing takes no IPv6 cluster: calico-node here enforces IPv4 only)"
      : "the cluster this stack makes is IPv4 (EKS's default ipFamily, which the program keeps)";
  return registryKeys(raw, "")
    .filter(([, prefix]) => hasIpv6LiteralHost(prefix))
    .map(([path, prefix]) => ({
      path,
      value: prefix,
      rule: `must name a registry the nodes can reach: its host is an IPv6 address, and ${whose}, so its nodes have no IPv6 address to pull from it`,
      hint: "name the registry by a host name or an IPv4 address",
    }));
}
