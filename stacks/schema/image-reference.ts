/**
 * The image reference grammar as the kubelet applies it: a transcription of github.com/distribution/reference
 * v0.6.0 (go.sum h1:0IXCQ5g4/QMHHkarYzh5l+u8T3t73zM5QvfrDyIgxBk=), the release Kubernetes 1.35 requires.
 * The kubelet parses every container image with its `ParseNormalizedNamed` (kubernetes pkg/util/parsers
 * `ParseImageName`, called by pkg/kubelet/images `applyDefaultImageTag`) and fails the pod with
 * InvalidImageName when it errs. regexp.go is transcribed piece by piece, `Parse` and `WithName` from
 * reference.go, `ParseNormalizedNamed` and `splitDockerDomain` from normalize.go, and the digest check
 * `Parse` makes from github.com/opencontainers/go-digest v1.0.0 (digest.go `Validate`, algorithm.go).
 * test/fixtures/distribution-reference.json holds the module's own test tables that check it.
 */

// regexp.go: the helpers.
const optional = (...res: string[]): string => `(?:${res.join("")})?`;
const anyTimes = (...res: string[]): string => `(?:${res.join("")})*`;
const capture = (...res: string[]): string => `(${res.join("")})`;
const anchored = (...res: string[]): string => `^${res.join("")}$`;

// regexp.go: the constants.
const alphanumeric = `[a-z0-9]+`;
const separator = `(?:[._]|__|[-]+)`;
const domainNameComponent = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`;
const optionalPort = `(?::[0-9]+)?`;
const tag = `[\\w][\\w.-]{0,127}`;
// [[:xdigit:]] is RE2's class for [0-9A-Fa-f].
const digestPat = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}`;
const identifier = `([a-f0-9]{64})`;
const ipv6address = `\\[(?:[a-fA-F0-9:]+)\\]`;

// regexp.go: the variables.
const domainName = domainNameComponent + anyTimes(`\\.` + domainNameComponent);
const host = `(?:${domainName}|${ipv6address})`;
const domainAndPort = host + optionalPort;
const pathComponent = alphanumeric + anyTimes(separator + alphanumeric);
const remoteName = pathComponent + anyTimes(`/` + pathComponent);
const namePat = optional(domainAndPort + `/`) + remoteName;

export const DomainRegexp = new RegExp(domainAndPort);
export const TagRegexp = new RegExp(tag);
export const ReferenceRegexp = new RegExp(
  anchored(capture(namePat), optional(`:`, capture(tag)), optional(`@`, capture(digestPat))),
);
export const anchoredDomainRegexp = new RegExp(anchored(domainAndPort));
export const anchoredNameRegexp = new RegExp(
  anchored(optional(capture(domainAndPort), `/`), capture(remoteName)),
);
export const anchoredIdentifierRegexp = new RegExp(anchored(identifier));
export const anchoredPathComponentRegexp = new RegExp(anchored(pathComponent));

/** reference.go: the longest repository path (the name without its domain). */
export const RepositoryNameTotalLengthMax = 255;

/** The errors of reference.go and go-digest, by their Go names, with their Go messages. */
export const ERRORS = {
  ErrReferenceInvalidFormat: "invalid reference format",
  ErrNameContainsUppercase: "repository name must be lowercase",
  ErrNameEmpty: "repository name must have at least one component",
  ErrNameTooLong: `repository name must not be more than ${RepositoryNameTotalLengthMax} characters`,
  "digest.ErrDigestInvalidFormat": "invalid checksum digest format",
  "digest.ErrDigestInvalidLength": "invalid checksum digest length",
  "digest.ErrDigestUnsupported": "unsupported digest algorithm",
} as const;
export type ReferenceError = keyof typeof ERRORS;

export interface ParsedReference {
  domain: string;
  path: string;
  tag: string;
  digest: string;
}

export type ParseResult = { ok: true; reference: ParsedReference } | { ok: false; error: ReferenceError };

// go-digest algorithm.go: the hex-encoded algorithms the kubelet links (sha256, sha384, sha512).
const DIGEST_HEX_LENGTH: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };
const anchoredDigestRegexp = new RegExp(anchored(digestPat));

/** go-digest digest.go `Digest.Validate`. */
function digestProblem(digest: string): ReferenceError | undefined {
  const i = digest.indexOf(":");
  if (i <= 0 || i + 1 === digest.length) return "digest.ErrDigestInvalidFormat";
  const algorithm = digest.slice(0, i);
  const encoded = digest.slice(i + 1);
  const length = Object.hasOwn(DIGEST_HEX_LENGTH, algorithm) ? DIGEST_HEX_LENGTH[algorithm] : undefined;
  if (length === undefined) {
    return anchoredDigestRegexp.test(digest)
      ? "digest.ErrDigestUnsupported"
      : "digest.ErrDigestInvalidFormat";
  }
  if (encoded.length !== length) return "digest.ErrDigestInvalidLength";
  return /^[a-f0-9]+$/.test(encoded) ? undefined : "digest.ErrDigestInvalidFormat";
}

/** reference.go `Parse`. */
export function parse(s: string): ParseResult {
  const matches = ReferenceRegexp.exec(s);
  if (matches === null) {
    if (s === "") return { ok: false, error: "ErrNameEmpty" };
    if (ReferenceRegexp.test(s.toLowerCase())) return { ok: false, error: "ErrNameContainsUppercase" };
    return { ok: false, error: "ErrReferenceInvalidFormat" };
  }
  const name = matches[1];
  const nameMatch = anchoredNameRegexp.exec(name);
  const domain = nameMatch?.[1] ?? "";
  const path = nameMatch !== null ? nameMatch[2] : name;
  if (path.length > RepositoryNameTotalLengthMax) return { ok: false, error: "ErrNameTooLong" };
  const digest = matches[3] ?? "";
  if (digest !== "") {
    const problem = digestProblem(digest);
    if (problem !== undefined) return { ok: false, error: problem };
  }
  // getBestReferenceType: a reference without a name is a digest reference, or nothing.
  if (name === "" && digest === "") return { ok: false, error: "ErrNameEmpty" };
  return { ok: true, reference: { domain, path, tag: matches[2] ?? "", digest } };
}

/** reference.go `WithName`: a name alone, no tag or digest. */
export function withName(name: string): ReferenceError | undefined {
  const match = anchoredNameRegexp.exec(name);
  if (match === null) return "ErrReferenceInvalidFormat";
  return match[2].length > RepositoryNameTotalLengthMax ? "ErrNameTooLong" : undefined;
}

const defaultDomain = "docker.io";
const legacyDefaultDomain = "index.docker.io";
const officialRepoPrefix = "library/";

/** normalize.go `splitDockerDomain`: where the kubelet takes the registry host of a name to be. */
export function splitDockerDomain(name: string): { domain: string; remainder: string } {
  const slash = name.indexOf("/");
  if (slash === -1) return { domain: defaultDomain, remainder: officialRepoPrefix + name };
  const maybeDomain = name.slice(0, slash);
  const maybeRemainder = name.slice(slash + 1);
  let domain: string;
  let remainder: string;
  if (maybeDomain === "localhost") {
    [domain, remainder] = [maybeDomain, maybeRemainder];
  } else if (maybeDomain === legacyDefaultDomain) {
    [domain, remainder] = [defaultDomain, maybeRemainder];
  } else if (/[.:]/.test(maybeDomain) || maybeDomain.toLowerCase() !== maybeDomain) {
    [domain, remainder] = [maybeDomain, maybeRemainder];
  } else {
    [domain, remainder] = [defaultDomain, name];
  }
  if (domain === defaultDomain && !remainder.includes("/")) remainder = officialRepoPrefix + remainder;
  return { domain, remainder };
}

/** normalize.go `ParseNormalizedNamed`: the check the kubelet makes of every container image. */
export function parseNormalizedNamed(
  s: string,
): { ok: true; reference: ParsedReference } | { ok: false; error: string } {
  if (anchoredIdentifierRegexp.test(s)) {
    return { ok: false, error: `invalid repository name (${s}), cannot specify 64-byte hexadecimal strings` };
  }
  const { domain, remainder } = splitDockerDomain(s);
  const tagSep = remainder.indexOf(":");
  const remote = tagSep > -1 ? remainder.slice(0, tagSep) : remainder;
  if (remote.toLowerCase() !== remote) {
    return { ok: false, error: `invalid reference format: repository name (${remote}) must be lowercase` };
  }
  const parsed = parse(`${domain}/${remainder}`);
  if (!parsed.ok) return { ok: false, error: ERRORS[parsed.error] };
  return parsed;
}
