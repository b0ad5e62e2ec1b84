/**
 * Name and image-reference checks with the messages opm prints: Kubernetes' DNS-1123 label rules
 * for package names, and the container image reference grammar (docker "normalized named"
 * references) for bundle and related images.
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Kubernetes IsDNS1123Label: the list of problems, empty when valid. */
export function dns1123LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!DNS1123_LABEL.test(value)) {
    if (value.length <= 253 && DNS1123_SUBDOMAIN.test(value)) errs.push('must not contain dots');
    else
      errs.push(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      );
  }
  return errs;
}

// The image reference grammar.
const alphanumeric = '[a-z0-9]+';
const separator = '(?:[._]|__|[-]+)';
const pathComponent = `${alphanumeric}(?:${separator}${alphanumeric})*`;
const domainNameComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const ipv6address = '\\[(?:[a-fA-F0-9:]+)\\]';
const domainName = `${domainNameComponent}(?:\\.${domainNameComponent})*`;
const host = `(?:${domainName}|${ipv6address})`;
const domainAndPort = `${host}(?::[0-9]+)?`;
const tag = '[\\w][\\w.-]{0,127}';
const digestPat = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';
const remoteName = `${pathComponent}(?:/${pathComponent})*`;
const namePat = `(?:${domainAndPort}/)?${remoteName}`;
const REFERENCE = new RegExp(`^(${namePat})(?::(${tag}))?(?:@(${digestPat}))?$`);
const ANCHORED_IDENTIFIER = /^[a-f0-9]{64}$/;

const DIGEST_SIZES: Record<string, number> = { sha256: 32, sha384: 48, sha512: 64 };

function digestError(d: string): string | undefined {
  const i = d.indexOf(':');
  if (i <= 0 || i + 1 === d.length) return 'invalid checksum digest format';
  const alg = d.slice(0, i);
  const enc = d.slice(i + 1);
  const size = DIGEST_SIZES[alg];
  if (size === undefined) return 'unsupported digest algorithm';
  if (enc.length !== size * 2) return 'invalid checksum digest length';
  if (!/^[a-f0-9]+$/.test(enc)) return 'invalid checksum digest format';
  return undefined;
}

function parseReference(s: string): string | undefined {
  const m = REFERENCE.exec(s);
  if (m === null) {
    if (s === '') return 'repository name must have at least one component';
    if (REFERENCE.test(s.toLowerCase())) return 'repository name must be lowercase';
    return 'invalid reference format';
  }
  if ((m[1] ?? '').length > 255) return 'repository name must not be more than 255 characters';
  if (m[3] !== undefined && m[3] !== '') return digestError(m[3]);
  return undefined;
}

/**
 * The error of docker's ParseNormalizedNamed for an image reference, or undefined when it is
 * valid. Short names (`busybox:1`) are accepted and normalized to docker.io/library.
 */
export function imageReferenceError(s: string): string | undefined {
  return plainlyValid(s) || plainShortName(s) ? undefined : imageReferenceErrorByGrammar(s);
}

/**
 * Whether `s` is a short name (`name[:tag]`, `org/name[:tag]`: no host) whose docker.io form is of
 * the plain shape: what the grammar would accept after the same normalisation, without compiling
 * the grammar's long expression (milliseconds at the start of a short `serve`).
 */
function plainShortName(s: string): boolean {
  const slash = s.indexOf('/');
  const first = slash === -1 ? '' : s.slice(0, slash);
  if (/[.:]/.test(first) || first === 'localhost' || first.toLowerCase() !== first) return false;
  if (ANCHORED_IDENTIFIER.test(s)) return false;
  return plainlyValid(slash === -1 ? `docker.io/library/${s}` : `docker.io/${s}`);
}

/**
 * The shape catalogs are full of, `host.name[:port]/path[:tag]` and/or `@sha256:<64 hex>`: a host
 * with a dot is always the domain, so this expression has no choice to backtrack over, unlike the
 * grammar's, whose domain is optional. What it does not match (short names, docker.io normalisation,
 * IPv6 hosts, other digests, every invalid reference) goes to the grammar, which gives opm's message.
 */
const PLAIN_REFERENCE =
  /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)+(?::[0-9]+)?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)+(?::\w[\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

/** Where the name of a reference ends: at its tag or digest, after its last `/`. */
const NAME_END = /[:@][^/]*$/;

/** Whether `s` is a valid reference of the plain shape (names longer than 255 are the grammar's). */
function plainlyValid(s: string): boolean {
  // index.docker.io is renamed docker.io, which changes the name's length: the grammar's case.
  if (!PLAIN_REFERENCE.test(s) || s.startsWith('index.docker.io/')) return false;
  const end = s.search(NAME_END);
  return (end === -1 ? s.length : end) <= 255;
}

/** imageReferenceError by the grammar's regular expression alone (exported for tests). */
export function imageReferenceErrorByGrammar(s: string): string | undefined {
  if (ANCHORED_IDENTIFIER.test(s)) {
    return `invalid repository name (${s}), cannot specify 64-byte hexadecimal strings`;
  }
  let domain: string;
  let remainder: string;
  const slash = s.indexOf('/');
  const first = slash === -1 ? '' : s.slice(0, slash);
  if (slash === -1 || (!/[.:]/.test(first) && first !== 'localhost' && first.toLowerCase() === first)) {
    domain = 'docker.io';
    remainder = s;
  } else {
    domain = first;
    remainder = s.slice(slash + 1);
  }
  if (domain === 'index.docker.io') domain = 'docker.io';
  if (domain === 'docker.io' && !remainder.includes('/')) remainder = 'library/' + remainder;
  const colon = remainder.indexOf(':');
  const repo = colon === -1 ? remainder : remainder.slice(0, colon);
  if (repo.toLowerCase() !== repo) {
    return 'invalid reference format: repository name must be lowercase';
  }
  return parseReference(`${domain}/${remainder}`);
}
