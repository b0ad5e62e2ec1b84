import { describe, expect, it } from 'vitest';
import { OpmError } from '../errors.js';
import { formatReference, parseReference } from './reference.js';

describe('parseReference', () => {
  const ok: Array<[string, string, string, string, string | undefined, string | undefined]> = [
    // input, registry, apiHost, repository, tag, digest
    ['busybox', 'docker.io', 'registry-1.docker.io', 'library/busybox', 'latest', undefined],
    ['busybox:1.36', 'docker.io', 'registry-1.docker.io', 'library/busybox', '1.36', undefined],
    ['docker.io/library/busybox:1', 'docker.io', 'registry-1.docker.io', 'library/busybox', '1', undefined],
    ['index.docker.io/foo/bar', 'docker.io', 'registry-1.docker.io', 'foo/bar', 'latest', undefined],
    [
      'quay.io/operatorhubio/catalog:latest',
      'quay.io',
      'quay.io',
      'operatorhubio/catalog',
      'latest',
      undefined,
    ],
    ['localhost/foo', 'localhost', 'localhost', 'foo', 'latest', undefined],
    [
      'localhost:5000/a/b/c:v1.0.0-rc_1',
      'localhost:5000',
      'localhost:5000',
      'a/b/c',
      'v1.0.0-rc_1',
      undefined,
    ],
    ['127.0.0.1:5000/ns/bundle:v0.1.0', '127.0.0.1:5000', '127.0.0.1:5000', 'ns/bundle', 'v0.1.0', undefined],
    ['[::1]:5000/ns/x:y', '[::1]:5000', '[::1]:5000', 'ns/x', 'y', undefined],
    ['foo__bar/a-b--c.d:t', 'docker.io', 'registry-1.docker.io', 'foo__bar/a-b--c.d', 't', undefined],
    [
      `quay.io/a/b@sha256:${'a'.repeat(64)}`,
      'quay.io',
      'quay.io',
      'a/b',
      undefined,
      `sha256:${'a'.repeat(64)}`,
    ],
    [
      `quay.io/a/b:v1@sha256:${'b'.repeat(64)}`,
      'quay.io',
      'quay.io',
      'a/b',
      'v1',
      `sha256:${'b'.repeat(64)}`,
    ],
  ];
  for (const [input, registry, apiHost, repository, tag, digest] of ok) {
    it(`parses ${input}`, () => {
      const r = parseReference(input);
      expect({
        registry: r.registry,
        apiHost: r.apiHost,
        repository: r.repository,
        tag: r.tag,
        digest: r.digest,
      }).toEqual({
        registry,
        apiHost,
        repository,
        tag,
        digest,
      });
      expect(r.original).toBe(input);
    });
  }

  const bad: Array<[string, string]> = [
    ['', 'empty'],
    ['Quay.io/ns/UPPER:v1', 'lowercase'],
    ['quay.io/ns/repo:', 'invalid tag'],
    ['quay.io/ns/repo:-bad', 'invalid tag'],
    [`quay.io/ns/repo@sha256:abc`, 'invalid digest'],
    ['quay.io/ns//repo', 'invalid path component'],
    ['quay.io/ns/re..po', 'invalid path component'],
    ['quay.io/', 'missing repository'],
    [`quay.io/${'a'.repeat(260)}`, 'too long'],
  ];
  for (const [input, why] of bad) {
    it(`rejects "${input.slice(0, 40)}"`, () => {
      let err: unknown;
      try {
        parseReference(input);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(OpmError);
      expect(err instanceof OpmError && err.code).toBe('E_IMAGE_REFERENCE');
      expect(err instanceof Error && err.message).toContain(why);
    });
  }

  it('formats the canonical form', () => {
    expect(formatReference(parseReference('busybox'))).toBe('docker.io/library/busybox:latest');
  });
});
