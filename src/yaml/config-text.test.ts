import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../test/corpus.js';
import { OpmError } from '../errors.js';
import { lineTooDeep, MAX_CONFIG_DEPTH, parseConfigDocument } from './config-text.js';
import { parseYamlDocument } from './yaml11.js';

/** `depth` levels of flow sequences. */
const flow = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** `depth` levels of block mappings, each key on its own line. */
function blockMaps(depth: number): string {
  let out = '';
  for (let i = 0; i < depth - 1; i++) out += `${'  '.repeat(i)}k${i}:\n`;
  return `${out}${'  '.repeat(depth - 1)}leaf: 1\n`;
}

/** A billion-laughs document: `levels` anchors, each aliasing the previous one `fan` times. */
function aliasBomb(levels: number, fan: number): string {
  const lines = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let i = 1; i <= levels; i++) {
    lines.push(
      `a${i}: &a${i} [${Array<string>(fan)
        .fill(`*a${i - 1}`)
        .join(', ')}]`,
    );
  }
  lines.push(`packages: *a${levels}`);
  return lines.join('\n') + '\n';
}

describe('lineTooDeep', () => {
  it('counts flow brackets (YAML and JSON) up to the limit, and not one more', () => {
    expect(lineTooDeep(flow(MAX_CONFIG_DEPTH))).toBeUndefined();
    expect(lineTooDeep(flow(MAX_CONFIG_DEPTH + 1))).toBe(1);
    expect(lineTooDeep(`{"a":\n ${flow(MAX_CONFIG_DEPTH)}}`)).toBe(2);
    expect(lineTooDeep(`{"a": ${flow(MAX_CONFIG_DEPTH - 1)}}`)).toBeUndefined();
    expect(lineTooDeep(`a: ${flow(5000)}`)).toBe(1);
  });

  it('counts block collections by indentation, compact sequences included', () => {
    expect(lineTooDeep(blockMaps(MAX_CONFIG_DEPTH))).toBeUndefined();
    expect(lineTooDeep(blockMaps(MAX_CONFIG_DEPTH + 1))).toBe(MAX_CONFIG_DEPTH + 1);
    expect(lineTooDeep(`a:\n${'- '.repeat(MAX_CONFIG_DEPTH - 1)}x\n`)).toBeUndefined();
    expect(lineTooDeep(`a:\n${'- '.repeat(MAX_CONFIG_DEPTH)}x\n`)).toBe(2);
    // Siblings close what was open: a long flat list is shallow.
    expect(lineTooDeep(`list:\n${'- name: x\n  v: [1]\n'.repeat(5000)}`)).toBeUndefined();
  });

  it('skips brackets in quotes, comments, plain scalars and block scalars', () => {
    const deep = '['.repeat(MAX_CONFIG_DEPTH + 5);
    for (const text of [
      `a: "${deep}"\n`,
      `a: '${deep}'\n`,
      `a: 1 # ${deep}\n`,
      `a: x${deep}\n`,
      `a: |\n  ${deep}\n  more ${deep}\nb: 1\n`,
      `- >-\n  ${deep}\n`,
      `a: "multi\n  line ${deep}"\n`,
      `a: 'it''s ${deep}'\n`,
      `a: it's ${deep}\n`,
      `a: see [1] and ${deep}\n`,
    ]) {
      expect(lineTooDeep(text), text).toBeUndefined();
    }
  });

  it('keeps counting block levels after a plain scalar holding brackets', () => {
    expect(lineTooDeep(`a: it's [beta] {x\n${blockMaps(MAX_CONFIG_DEPTH + 1)}`)).toBe(MAX_CONFIG_DEPTH + 2);
  });

  it('counts flow collections after a quoted key, an entry or a JSON colon', () => {
    expect(lineTooDeep(`"k": ${flow(MAX_CONFIG_DEPTH)}`)).toBe(1);
    expect(lineTooDeep(`- ${flow(MAX_CONFIG_DEPTH)}`)).toBe(1);
    expect(lineTooDeep(`{"k":${flow(MAX_CONFIG_DEPTH)}}`)).toBe(1);
    expect(lineTooDeep(`{"k": [1, ${flow(MAX_CONFIG_DEPTH - 2)}]}`)).toBeUndefined();
    expect(lineTooDeep(`{"k": [1,${flow(MAX_CONFIG_DEPTH - 1)}]}`)).toBe(1);
  });

  it('finds nothing too deep in the configuration files of the repository', () => {
    const root = projectRoot();
    const files = [
      ...readdirSync(path.join(root, 'testdata'), { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.(ya?ml|json)$/.test(f) && !f.includes('catalog'))
        .map((f) => path.join(root, 'testdata', f)),
      ...readdirSync(path.join(root, 'schemas')).map((f) => path.join(root, 'schemas', f)),
    ];
    expect(files.length).toBeGreaterThan(20);
    for (const f of files) expect(lineTooDeep(readFileSync(f, 'utf8')), f).toBeUndefined();
  });
});

describe('parseConfigDocument', () => {
  it('refuses a document nested too deeply, with file and line, before parsing it', () => {
    const err = ((): unknown => {
      try {
        parseConfigDocument(`packages:\n  - ${flow(5000)}\n`, 'deep.yaml');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(OpmError);
    expect(err).toMatchObject({
      message: 'nested more than 100 levels deep',
      at: { file: 'deep.yaml', line: 2 },
    });
  });

  it('refuses an alias bomb at its first alias', () => {
    expect(() => parseConfigDocument(aliasBomb(8, 9), 'bomb.yaml')).toThrow(
      expect.objectContaining({
        message: 'document contains excessive aliasing',
        at: { file: 'bomb.yaml', line: 2 },
      }),
    );
  });

  it('refuses an alias to a collection that holds it', () => {
    expect(() => parseConfigDocument('a: &a [1, *a]\n', 'loop.yaml')).toThrow(OpmError);
  });

  it('takes a few aliases, as go-yaml does', () => {
    const { doc } = parseConfigDocument('x: &x {name: foo}\npackages: [*x, *x]\n', 'ok.yaml');
    expect(doc.toJS()).toEqual({ x: { name: 'foo' }, packages: [{ name: 'foo' }, { name: 'foo' }] });
  });

  it('decides as the catalog reader does (js-yaml values and alias-limit.ts), on either side of the rule', () => {
    const verdict = (f: () => unknown): boolean => {
      try {
        f();
        return true;
      } catch {
        return false;
      }
    };
    let accepted = 0;
    for (const [levels, fan] of [
      [1, 50],
      [1, 120],
      [2, 11],
      [2, 12],
      [3, 5],
      [3, 6],
      [4, 4],
      [5, 3],
      [8, 9],
      [12, 2],
      [18, 2],
    ] as const) {
      const text = aliasBomb(levels, fan);
      const ours = verdict(() => parseConfigDocument(text, 'x.yaml'));
      expect(ours, `${levels}×${fan}`).toBe(verdict(() => parseYamlDocument(text)));
      if (ours) accepted++;
    }
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThan(11);
  });

  it('says where a parse error is', () => {
    expect(() => parseConfigDocument('a: 1\nb: [\n', 'bad.yaml')).toThrow(
      expect.objectContaining({ at: expect.objectContaining({ file: 'bad.yaml' }) as unknown }),
    );
  });
});
