/** A registry's refusal of a push step, in one line: what was refused, where, and what to do. */
import { OpmError } from '../../errors.js';
import { registryError } from '../auth/session.js';
import type { HttpResponse } from '../http/types.js';
import type { ImageReference } from '../reference.js';

/** The manifest named blobs the registry does not have (it claimed to, or lost them). */
export class BlobUnknownError extends OpmError {
  readonly digest: string | undefined;
  constructor(message: string, digest: string | undefined) {
    super(message, { code: 'E_REGISTRY_BLOB_UNKNOWN' });
    this.digest = digest;
  }
}

function detailOf(e: { code: string; message: string }): string {
  return e.code !== '' ? ` (${e.code}${e.message !== '' ? `: ${e.message}` : ''})` : '';
}

/**
 * The error for an answer other than the one a push step expects. `what` names the step
 * (`upload of blob sha256:…`, `manifest for tag "v1"`).
 */
export async function pushStatusError(
  res: HttpResponse,
  ref: ImageReference,
  what: string,
): Promise<OpmError> {
  const e = await registryError(res);
  const detail = detailOf(e);
  const repo = `${ref.registry}/${ref.repository}`;
  const quota = /quota|storage|space/i.test(`${e.code} ${e.message}`);
  if (res.status === 401 || res.status === 403 || e.code === 'DENIED' || e.code === 'UNAUTHORIZED') {
    if (quota) {
      return new OpmError(`${what}: quota exceeded in ${repo} (HTTP ${res.status})${detail}`, {
        code: 'E_REGISTRY_QUOTA',
        hint: 'free space in the repository or ask for a larger quota',
      });
    }
    return new OpmError(`push to ${repo} denied (HTTP ${res.status})${detail}`, {
      code: 'E_REGISTRY_AUTH',
      hint: `log in with credentials that may push to ${ref.repository} (REGISTRY_AUTH_FILE, $DOCKER_CONFIG/config.json, ~/.docker/config.json)`,
    });
  }
  if (res.status === 405 || e.code === 'UNSUPPORTED') {
    return new OpmError(`${ref.registry} does not accept pushes (HTTP ${res.status})${detail}`, {
      code: 'E_REGISTRY_PUSH_UNSUPPORTED',
      hint: 'the registry is read-only or a pull-through cache; push to another registry',
    });
  }
  if (res.status === 413) {
    return new OpmError(`${what}: too large for ${ref.registry} (HTTP 413)${detail}`, {
      code: 'E_REGISTRY_QUOTA',
      hint: 'the registry (or a proxy in front of it) limits the size of a request',
    });
  }
  if (res.status === 507 || quota) {
    return new OpmError(`${what}: quota exceeded in ${repo} (HTTP ${res.status})${detail}`, {
      code: 'E_REGISTRY_QUOTA',
      hint: 'free space in the repository or ask for a larger quota',
    });
  }
  if (e.code === 'BLOB_UNKNOWN' || e.code === 'MANIFEST_BLOB_UNKNOWN') {
    const m = /sha256:[0-9a-f]{64}/.exec(`${e.message} ${e.detail}`);
    return new BlobUnknownError(`${what}: ${repo} does not have a blob it names${detail}`, m?.[0]);
  }
  if (res.status === 404 && e.code === 'NAME_UNKNOWN') {
    return new OpmError(`repository ${repo} not found${detail}`, {
      code: 'E_REGISTRY_NOT_FOUND',
      hint: 'the registry creates repositories on push only where it is allowed to; check the name',
    });
  }
  if (res.status === 429) {
    return new OpmError(`${what}: rate limited (HTTP 429)${detail}`, {
      code: 'E_REGISTRY_RATE_LIMIT',
      hint: 'retry later',
    });
  }
  return new OpmError(`${what}: unexpected HTTP ${res.status} from ${ref.registry}${detail}`, {
    code: 'E_REGISTRY_HTTP',
  });
}

/** A push step's answer lacked what the protocol requires (an upload without a Location). */
export function protocolError(ref: ImageReference, what: string): OpmError {
  return new OpmError(`${ref.registry}: ${what}`, { code: 'E_REGISTRY_RESPONSE' });
}
