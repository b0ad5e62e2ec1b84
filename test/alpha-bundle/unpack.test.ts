// The unpack use case over an image source that serves a folder (the registry is in
// unpack-registry.test.ts and, against the reference opm, test/reference/alpha-bundle-unpack.test.ts):
// where it writes, with which modes, what it refuses, and the format checks of src/authoring/.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unpackBundle } from '../../src/action/alpha-bundle/unpack.js';
import type { ImageSource } from '../../src/oci/image-source.js';
import { annotationProblems, checkBundleFormat } from '../../src/authoring/bundle-format.js';
import { OpmError } from '../../src/errors.js';
import { readTree } from './tree.js';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-bundle-unpack-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const K = (k: string): string => `operators.operatorframework.io.bundle.${k}`;
const GOOD = `annotations:\n  ${K('mediatype.v1')}: plain\n  ${K('manifests.v1')}: manifests/\n  ${K('metadata.v1')}: metadata/\n  ${K('package.v1')}: p\n  ${K('channels.v1')}: stable\n`;

let n = 0;
/** A folder holding an unpacked image, from `files` (path → content; a trailing `/` for a folder). */
function image(files: Record<string, string>): string {
  const root = path.join(tmp, `img${++n}`);
  mkdirSync(root);
  for (const [p, content] of Object.entries(files)) {
    if (p.endsWith('/')) mkdirSync(path.join(root, p), { recursive: true });
    else {
      mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
      writeFileSync(path.join(root, p), content);
    }
  }
  return root;
}

/** A source serving `root` for any reference, with the archived `modes`; counts releases. */
function source(root: string, modes: Record<string, number> = {}): ImageSource & { released: number } {
  const s = {
    released: 0,
    pull: (ref: string) =>
      Promise.resolve({
        ref,
        digest: 'sha256:0',
        labels: {},
        root,
        modes: new Map(Object.entries(modes)),
        release: () => {
          s.released++;
          return Promise.resolve();
        },
      }),
  };
  return s;
}

const BUNDLE = { 'manifests/cm.yaml': 'kind: ConfigMap\n', 'metadata/annotations.yaml': GOOD };

describe('unpackBundle', () => {
  it('creates the output folder (0700 once written, as opm leaves it) and writes the tree with the archived modes', async () => {
    const src = source(image({ ...BUNDLE, 'extra/x.txt': 'x' }), {
      'manifests/cm.yaml': 0o400,
      manifests: 0o555,
      'metadata/annotations.yaml': 0o644,
    });
    const cwd = path.join(tmp, 'c1');
    mkdirSync(cwd);
    const r = await unpackBundle('example.com/b:v1', { imageSource: src, out: 'a/b', cwd });
    expect(r.out).toBe(path.join(cwd, 'a/b'));
    expect(statSync(r.out).mode & 0o777).toBe(0o700);
    expect(readTree(r.out).map((e) => `${e.path} ${e.mode}`)).toEqual([
      'extra/ 755',
      'extra/x.txt 644',
      'manifests/ 755',
      'manifests/cm.yaml 600',
      'metadata/ 755',
      'metadata/annotations.yaml 644',
    ]);
    expect(src.released).toBe(1);
  });

  it('writes into a folder that is there, keeping its mode and the files it has', async () => {
    const out = path.join(tmp, 'existing');
    mkdirSync(out);
    chmodSync(out, 0o751);
    writeFileSync(path.join(out, 'keep.txt'), 'mine');
    await unpackBundle('b', { imageSource: source(image(BUNDLE)), out });
    expect(statSync(out).mode & 0o777).toBe(0o751);
    expect(readFileSync(path.join(out, 'keep.txt'), 'utf8')).toBe('mine');
    expect(readFileSync(path.join(out, 'metadata/annotations.yaml'), 'utf8')).toBe(GOOD);
  });

  it('refuses an output path that is a file, before pulling', async () => {
    const file = path.join(tmp, 'a-file');
    writeFileSync(file, '');
    const src = source(image(BUNDLE));
    await expect(unpackBundle('b', { imageSource: src, out: file })).rejects.toThrow(
      `out ${file} is not a directory`,
    );
    expect(src.released).toBe(0);
  });

  it('refuses to write through a symlink in the output folder', async () => {
    const out = path.join(tmp, 'with-link');
    const elsewhere = path.join(tmp, 'elsewhere');
    mkdirSync(out);
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, path.join(out, 'manifests'));
    const err = await unpackBundle('b', { imageSource: source(image(BUNDLE)), out }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpmError);
    expect((err as OpmError).message).toMatch(/manifests is a symbolic link$/);
    expect(existsSync(path.join(elsewhere, 'cm.yaml'))).toBe(false);
  });

  it('checks the format first and writes nothing when it is wrong; -v skips the checks and says so', async () => {
    const root = image({ 'manifests/cm.yaml': 'kind: ConfigMap\n' });
    const out = path.join(tmp, 'bad');
    const src = source(root);
    await expect(unpackBundle('b', { imageSource: src, out })).rejects.toThrow(
      'bundle format validation failed: Bundle validation errors: Unable to locate metadata directory',
    );
    expect(readTree(out)).toEqual([]);
    expect(src.released).toBe(1);
    const lines: string[] = [];
    await unpackBundle('b', { imageSource: src, out, skipValidation: true, log: (l) => lines.push(l) });
    expect(lines).toEqual(['skipping bundle validation']);
    expect(readTree(out).map((e) => e.path)).toEqual(['manifests/', 'manifests/cm.yaml']);
  });

  it('hands the manifests to the content checks when given, and fails in opm words on what they find', async () => {
    const root = image(BUNDLE);
    let seen = '';
    const err = await unpackBundle('b', {
      imageSource: source(root),
      out: path.join(tmp, 'content'),
      validateContent: (dir) => {
        seen = dir;
        return Promise.resolve(['first problem', 'second problem']);
      },
    }).catch((e: unknown) => e);
    expect(seen).toBe(path.join(root, 'manifests'));
    expect((err as OpmError).message).toBe(
      'bundle content validation failed: Bundle validation errors: first problem,second problem',
    );
  });
});

describe('checkBundleFormat', () => {
  it('finds nothing wrong with a good bundle, and returns what it read', async () => {
    const f = await checkBundleFormat(image(BUNDLE));
    expect(f.errors).toEqual([]);
    expect(f.mediaType).toBe('plain');
    expect(f.annotationsFile).toBe('annotations.yaml');
    expect(f.annotations?.get(K('package.v1'))).toBe('p');
  });

  it('reads the first file of metadata/ that holds annotations, whatever its name', async () => {
    const f = await checkBundleFormat(
      image({
        'manifests/cm.yaml': 'kind: ConfigMap\n',
        'metadata/a.yaml': 'x: 1\n',
        'metadata/b.yml': GOOD,
      }),
    );
    expect(f.errors).toEqual([]);
    expect(f.annotationsFile).toBe('b.yml');
  });

  it('names both missing folders, then stops', async () => {
    expect((await checkBundleFormat(image({ 'x.txt': '' }))).errors).toEqual([
      'Unable to locate manifests directory',
      'Unable to locate metadata directory',
    ]);
  });

  it('an annotations file whose values are not all strings is no annotations file (as opm reads it)', async () => {
    const f = await checkBundleFormat(
      image({ 'manifests/cm.yaml': 'kind: ConfigMap\n', 'metadata/annotations.yaml': `${GOOD}  n: 1\n` }),
    );
    expect(f.errors).toEqual(['Could not find annotations file']);
  });

  it('the further metadata checks are called with the folder and its files', async () => {
    const f = await checkBundleFormat(
      image({ ...BUNDLE, 'metadata/dependencies.yaml': 'dependencies: []\n' }),
      {
        metadataChecks: (dir, files) => Promise.resolve([`${path.basename(dir)}: ${files.join(' ')}`]),
      },
    );
    expect(f.errors).toEqual(['metadata: annotations.yaml dependencies.yaml']);
  });
});

describe('annotationProblems', () => {
  it("lists every problem in opm's words, in a fixed order", () => {
    expect(annotationProblems('registry+v1', new Map([[K('channel.default.v1'), '']]))).toEqual([
      `Missing annotation "${K('mediatype.v1')}"`,
      `Expecting annotation "${K('mediatype.v1')}" to have value "registry+v1" instead of ""`,
      `Missing annotation "${K('manifests.v1')}"`,
      `Missing annotation "${K('metadata.v1')}"`,
      `Missing annotation "${K('package.v1')}"`,
      `Missing annotation "${K('channels.v1')}"`,
      `Expecting annotation "${K('channels.v1')}" to have non-empty value`,
      `Expecting annotation "${K('channel.default.v1')}" to have non-empty value`,
    ]);
  });

  it('does not compare the manifests and metadata values, as opm does not', () => {
    const a = new Map([
      [K('mediatype.v1'), 'plain'],
      [K('manifests.v1'), 'elsewhere/'],
      [K('metadata.v1'), 'other/'],
      [K('package.v1'), 'p'],
      [K('channels.v1'), 'a'],
    ]);
    expect(annotationProblems('plain', a)).toEqual([]);
  });
});
