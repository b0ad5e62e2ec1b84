/** A registry's answer other than the one asked for, in one line: what was missing or refused. */
import { OpmError } from '../errors.js';
import { registryError } from './auth/session.js';
import type { HttpResponse } from './http/types.js';
import type { ImageReference } from './reference.js';

export async function statusError(
  res: HttpResponse,
  ref: ImageReference,
  what: 'tag' | 'manifest' | 'blob',
): Promise<OpmError> {
  const e = await registryError(res);
  const detail = e.code !== '' ? ` (${e.code}${e.message !== '' ? `: ${e.message}` : ''})` : '';
  if (res.status === 404) {
    if (e.code === 'NAME_UNKNOWN') {
      return new OpmError(`repository "${ref.repository}" not found${detail}`, {
        code: 'E_REGISTRY_NOT_FOUND',
        hint: 'check the repository name',
      });
    }
    const thing =
      what === 'tag'
        ? `tag "${ref.tag ?? 'latest'}"`
        : what === 'manifest'
          ? `manifest ${ref.digest ?? ''}`
          : 'blob';
    return new OpmError(`${thing} not found in repository "${ref.repository}"${detail}`, {
      code: 'E_REGISTRY_NOT_FOUND',
      hint: 'check the repository name and the tag or digest',
    });
  }
  if (res.status === 403) {
    return new OpmError(`access denied (HTTP 403)${detail}`, { code: 'E_REGISTRY_AUTH' });
  }
  if (res.status === 429) {
    return new OpmError(`rate limited (HTTP 429)${detail}`, {
      code: 'E_REGISTRY_RATE_LIMIT',
      hint: 'retry later',
    });
  }
  return new OpmError(`unexpected HTTP ${res.status}${detail}`, { code: 'E_REGISTRY_HTTP' });
}
