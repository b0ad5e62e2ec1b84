import { describe, expect, it } from 'vitest';
import type { BaseImage } from './assemble.js';
import { runOwner } from './catalog-image.js';

/** A base of one platform whose config says `config`. */
function base(config: unknown): BaseImage {
  return {
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    isIndex: false,
    images: [
      {
        platform: { os: 'linux', architecture: 'amd64' },
        layers: [],
        layerBlobs: [],
        config: Buffer.from(JSON.stringify(config)),
      },
    ],
  };
}

describe('runOwner: who owns what a RUN step under the base’s USER writes', () => {
  it('is the numeric user in group 0, or the numeric user and group', () => {
    expect(runOwner(base({ config: { User: '1001' } }))).toEqual({ uid: 1001, gid: 0 });
    expect(runOwner(base({ config: { User: '1001:1002' } }))).toEqual({ uid: 1001, gid: 1002 });
  });

  it('is root without a user, or with a name only the base’s /etc/passwd could resolve', () => {
    expect(runOwner(base({ config: {} }))).toEqual({ uid: 0, gid: 0 });
    expect(runOwner(base({}))).toEqual({ uid: 0, gid: 0 });
    expect(runOwner(base({ config: { User: 'nonroot' } }))).toEqual({ uid: 0, gid: 0 });
  });
});
