import { OpmError } from '../errors.js';

/**
 * An image reference split per the distribution grammar. Familiar names are normalised the way the
 * docker CLI does (`busybox` → `docker.io/library/busybox:latest`); opm itself refuses them, we
 * accept them because they are unambiguous.
 */
export interface ImageReference {
  /** Registry as named in the reference, normalised: `docker.io`, `quay.io`, `127.0.0.1:5000`. */
  registry: string;
  /** Host (and port) the API is served on: `registry-1.docker.io` for Docker Hub. */
  apiHost: string;
  /** Repository path inside the registry: `library/busybox`. */
  repository: string;
  tag: string | undefined;
  digest: string | undefined;
  /** The reference exactly as given. */
  original: string;
}

const DOCKER_HUB = 'docker.io';
const DOCKER_HUB_API = 'registry-1.docker.io';

// One path component: lower-case alphanumerics joined by `.`, `_`, `__` or runs of `-`.
const COMPONENT = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;
// Host: DNS labels or an IPv4 address, or an IPv6 literal in brackets; optional port.
export const DOMAIN =
  /^(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\[[0-9a-fA-F:.]+\])(?::[0-9]+)?$/;
const MAX_NAME = 255;

function invalid(ref: string, why: string): OpmError {
  return new OpmError(`invalid image reference "${ref}": ${why}`, { code: 'E_IMAGE_REFERENCE' });
}

/** Parse `[host[:port]/]path[:tag][@digest]`. A name without tag or digest gets `latest`. */
export function parseReference(input: string): ImageReference {
  const ref = input.trim();
  if (ref === '') throw invalid(input, 'empty reference');
  let rest = ref;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw invalid(input, `invalid digest "${digest}"`);
  }
  let tag: string | undefined;
  // A tag follows the last ':' that comes after the last '/', so a registry port is not a tag.
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw invalid(input, `invalid tag "${tag}"`);
  }
  if (rest === '') throw invalid(input, 'missing repository name');

  let registry: string;
  let path: string;
  const slash = rest.indexOf('/');
  const first = slash < 0 ? '' : rest.slice(0, slash);
  // The first component is a host when it looks like one; otherwise the name is on Docker Hub.
  if (
    slash >= 0 &&
    (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase())
  ) {
    registry = first;
    path = rest.slice(slash + 1);
    if (!DOMAIN.test(registry)) throw invalid(input, `invalid registry host "${registry}"`);
  } else {
    registry = DOCKER_HUB;
    path = rest;
  }
  if (path === '') throw invalid(input, 'missing repository name');
  if (registry === 'index.docker.io' || registry === DOCKER_HUB_API) registry = DOCKER_HUB;
  if (registry === DOCKER_HUB && !path.includes('/')) path = `library/${path}`;
  for (const c of path.split('/')) {
    if (!COMPONENT.test(c)) {
      const why =
        c !== c.toLowerCase() ? 'repository name must be lowercase' : `invalid path component "${c}"`;
      throw invalid(input, why);
    }
  }
  if (registry.length + 1 + path.length > MAX_NAME) throw invalid(input, 'repository name too long');
  if (tag === undefined && digest === undefined) tag = 'latest';
  return {
    registry,
    apiHost: registry === DOCKER_HUB ? DOCKER_HUB_API : registry,
    repository: path,
    tag,
    digest,
    original: input,
  };
}

/** Canonical string: `registry/repo[:tag][@digest]`. */
export function formatReference(r: ImageReference): string {
  return `${r.registry}/${r.repository}${r.tag === undefined ? '' : `:${r.tag}`}${r.digest === undefined ? '' : `@${r.digest}`}`;
}
