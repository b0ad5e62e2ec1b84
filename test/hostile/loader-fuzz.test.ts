// A fuzz suite of our own for the loader: seeded random mutations of real catalog text (the corpus,
// read in place, or our example catalog without it), each loaded by render and validate. Every case
// must end with exit 0 or 1, one `error:` line for render, and no stack trace.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { corpusPath, haveCorpus } from '../corpus.js';
import { runOpm } from '../run-cli.js';
import { seededRandom } from '../seeded-random.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-loader-fuzz-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const seeds: string[] = [readFileSync('testdata/examples/catalog/example-operator/catalog.yaml', 'utf8')];
if (haveCorpus()) {
  for (const p of ['kube-green', 'clusterpulse']) {
    // The first 64 KB keep each case quick; mutations cut YAML anywhere anyway.
    seeds.push(
      readFileSync(corpusPath('community-catalog-v4.21', p, 'catalog.yaml'), 'utf8').slice(0, 65_536),
    );
  }
}

const SNIPPETS = [
  ':',
  '- ',
  '[',
  ']',
  '{',
  '}',
  '"',
  "'",
  '&a ',
  '*a',
  '!!binary ',
  '!!str ',
  '<<: *a',
  '\t',
  '\n',
  '\n---\n',
  '\u0000',
  '\ufffd',
  '\u001b[2J',
  '~',
  '? ',
  '|',
  '>',
  '#',
  '%YAML 1.1\n',
  '1e400',
  '{"a":',
];

function mutate(text: string, rnd: () => number): string {
  let t = text;
  const n = 1 + Math.floor(rnd() * 4);
  for (let i = 0; i < n; i++) {
    const at = Math.floor(rnd() * t.length);
    const len = Math.floor(rnd() * 200);
    switch (Math.floor(rnd() * 5)) {
      case 0:
        t = t.slice(0, at) + t.slice(at + len);
        break;
      case 1:
        t = t.slice(0, at) + t.slice(at, at + len) + t.slice(at);
        break;
      case 2:
        t = t.slice(0, at) + SNIPPETS[Math.floor(rnd() * SNIPPETS.length)] + t.slice(at);
        break;
      case 3: {
        const lines = t.split('\n');
        const k = Math.floor(rnd() * lines.length);
        lines[k] = ' '.repeat(Math.floor(rnd() * 5)) + (lines[k] ?? '').trimStart();
        t = lines.join('\n');
        break;
      }
      default:
        t = t.slice(0, at);
    }
  }
  return t;
}

describe('loader fuzz', () => {
  const cases = Array.from({ length: 150 }, (_, i) => i);
  it.each(cases)('case %i', async (i) => {
    const rnd = seededRandom(1000 + i);
    const seed = seeds[i % seeds.length] ?? '';
    const dir = path.join(tmp, `case-${i}`);
    mkdirSync(dir);
    writeFileSync(path.join(dir, i % 7 === 0 ? 'catalog.json' : 'catalog.yaml'), mutate(seed, rnd));
    const r = await runOpm(['render', dir, '-o', 'json']);
    expect([0, 1]).toContain(r.code);
    if (r.code === 1) {
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^error: /);
    }
    const v = await runOpm(['validate', dir]);
    expect([0, 1]).toContain(v.code);
    for (const out of [r.stderr, v.stderr]) {
      expect(out).not.toMatch(/\n\s+at /);
      expect(out).not.toContain('unexpected error');
      expect(out).not.toContain('\u001b');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps memory bounded over all cases', () => {
    expect(process.memoryUsage().heapUsed).toBeLessThan(1.5 * 1024 ** 3);
  });
});
