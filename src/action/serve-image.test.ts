import { describe, expect, it } from 'vitest';
import { cacheDirOfCommand, isServableReference } from './serve-image.js';

describe('serve <image>: which arguments are pulled', () => {
  it.each([
    ['quay.io/org/catalog:v4.21', true],
    ['quay.io/org/catalog', true],
    ['localhost/index:1', true],
    ['127.0.0.1:5000/catalogs/x@sha256:' + 'a'.repeat(64), true],
    ['registry.example.com:5000/a/b/c:tag', true],
    // A bare or organisation-only name is a missing directory, as opm says.
    ['catalog', false],
    ['org/catalog:v1', false],
    ['./catalog', false],
    ['/abs/catalog', false],
    ['~/catalog', false],
    ['quay.io/Org/Upper:v1', false],
  ])('%s: %s', (arg, pulled) => {
    expect(isServableReference(arg)).toBe(pulled);
  });
});

describe('the cache directory an image command names', () => {
  it.each([
    [['serve', '/configs', '--cache-dir=/tmp/cache'], '/tmp/cache'],
    [['serve', '/configs', '--cache-dir', '/var/cache/x'], '/var/cache/x'],
    [['serve', '/configs', '-cache-dir=/c'], '/c'],
    [['serve', '/configs'], undefined],
    [[], undefined],
  ])('%j: %s', (cmd, dir) => {
    expect(cacheDirOfCommand(cmd)).toBe(dir);
  });
});
