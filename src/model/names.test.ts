// imageReferenceError reads the usual references in one pass and leaves the rest to the grammar's
// regular expression: the two must give the same verdict and message on every reference.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusDir, haveCorpus } from '../../test/corpus.js';
import { seededRandom } from '../../test/seeded-random.js';
import { imageReferenceError, imageReferenceErrorByGrammar } from './names.js';

const hex64 = 'a1b2c3d4e5f60718'.repeat(4);

function expectSameVerdict(ref: string): void {
  expect(imageReferenceError(ref), ref).toBe(imageReferenceErrorByGrammar(ref));
}

describe('imageReferenceError', () => {
  it.each([
    'quay.io/org/name:v1.2.3',
    `quay.io/org/name@sha256:${hex64}`,
    `quay.io/org/name:v1@sha256:${hex64}`,
    'registry.example.com:5000/a/b/c:latest',
    'Registry.Example.COM/a/b:V_1-x.y',
    'quay.io/a.b/c_d/e__f/g---h:t',
    'docker.io/library/busybox:1',
    'index.docker.io/busybox:1',
    'localhost:5000/a:b',
    'busybox',
    'busybox:1',
    '[::1]:5000/a/b:c',
    `quay.io/${'a'.repeat(250)}:v1`,
    `quay.io/${'a'.repeat(248)}:v1`,
    `quay.io/a:${'t'.repeat(128)}`,
    `quay.io/a:${'t'.repeat(129)}`,
    `quay.io/a@sha512:${hex64}${hex64}`,
    'org/name:v1',
    `org/name@sha256:${hex64}`,
    'org/sub/name:v1',
    'Org/name:v1',
    `${'a'.repeat(237)}:v1`,
    `${'a'.repeat(238)}:v1`,
    `org/${'a'.repeat(241)}`,
    `org/${'a'.repeat(242)}`,
  ])('agrees with the grammar on %s', (ref) => {
    expectSameVerdict(ref);
  });

  it.each([
    'quay.io/Org/name:v1',
    'quay.io/org/name:',
    'quay.io/org//name',
    'quay.io/org/name/',
    'quay.io/org/-name',
    'quay.io/org/name-',
    'quay.io/org/a___b',
    'quay.io/org/a._b',
    '-quay.io/a',
    'quay-.io/a',
    'quay..io/a',
    'quay.io:/a',
    'quay.io:50a/a',
    'quay.io/a:-v1',
    'quay.io/a:v1:v2',
    `quay.io/a@sha256:${hex64.toUpperCase()}`,
    `quay.io/a@sha256:${hex64.slice(1)}`,
    `quay.io/a@sha256:${hex64}0`,
    `quay.io/a@SHA256:${hex64}`,
    `quay.io/a@md5:${hex64.slice(0, 32)}`,
    hex64,
    '',
    'quay.io/a b',
    'quay.io/a\u00e9',
  ])('gives the grammar’s message for %s', (ref) => {
    expect(imageReferenceError(ref)).toBeDefined();
    expectSameVerdict(ref);
  });

  it('agrees with the grammar on generated and mutated references', () => {
    const random = seededRandom(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    const hosts = [
      'quay.io',
      'registry.redhat.io',
      'a.b.c',
      'x-y.z',
      'Q.IO',
      'localhost',
      'host',
      'h.io:5000',
    ];
    const parts = ['a', 'op', 'name-x', 'a.b', 'a_b', 'a__b', 'a--b', 'A', 'a-', '_a', 'a..b', '9'];
    const tags = ['', ':v1', ':V1.0_rc-1', ':', ':-x', `:${'t'.repeat(128)}`, ':a:b'];
    const digests = ['', `@sha256:${hex64}`, `@sha256:${hex64.slice(2)}`, `@sha512:${hex64}`, '@x'];
    const chars = [...'/:@.-_aZ9 '];
    for (let i = 0; i < 5000; i++) {
      const path = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(parts)).join('/');
      // A quarter without a host: short names, which docker.io takes.
      const host = random() < 0.25 ? '' : `${pick(hosts)}/`;
      let ref = `${host}${path}${pick(tags)}${pick(digests)}`;
      if (random() < 0.3) {
        // One character replaced, inserted or removed anywhere.
        const at = Math.floor(random() * (ref.length + 1));
        const op = Math.floor(random() * 3);
        ref = ref.slice(0, at) + (op === 2 ? '' : pick(chars)) + ref.slice(op === 1 ? at : at + 1);
      }
      expectSameVerdict(ref);
    }
  });

  it.runIf(haveCorpus())('agrees with the grammar on every image of the corpus catalogs', () => {
    const catalogs = path.join(corpusDir ?? '', 'community-catalog-v4.21');
    let checked = 0;
    for (const pkg of readdirSync(catalogs)) {
      const dir = path.join(catalogs, pkg);
      for (const file of readdirSync(dir)) {
        const text = readFileSync(path.join(dir, file), 'utf8');
        for (const m of text.matchAll(/^\s*-?\s*image: (\S+)$/gm)) {
          expectSameVerdict((m[1] ?? '').replace(/^"|"$/g, ''));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});
