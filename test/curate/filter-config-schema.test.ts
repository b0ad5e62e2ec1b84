// schemas/filter-config.json describes what the --config reader takes: the selection files of the
// fixtures pass it, the ones the reader refuses for their shape fail it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseFilterConfig } from '../../src/curate/filter-config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const schema: unknown = JSON.parse(readFileSync(path.join(root, 'schemas/filter-config.json'), 'utf8'));
const validate = new Ajv({ strict: false }).compile(schema as object);
const fixture = (name: string): string =>
  readFileSync(path.join(root, 'testdata/curate/filter-graph', name), 'utf8');
// As the reader does: every scalar is text.
const read = (text: string): unknown => parse(text, { schema: 'failsafe' });

describe('schemas/filter-config.json', () => {
  it.each(['fast-up-to-1.4.yaml', 'isc.yaml', 'drops-default.yaml', 'no-match.yaml'])(
    '%s is accepted by the schema and by the reader',
    (name) => {
      expect(validate(read(fixture(name))), JSON.stringify(validate.errors)).toBe(true);
      expect(
        parseFilterConfig(fixture(name), name, 'registry.example.com/catalogs/example:v1').length,
      ).toBeGreaterThan(0);
    },
  );

  it.each([
    ['unknown-key.yaml', fixture('unknown-key.yaml')],
    ['a version that is not semver', '- name: a\n  minVersion: "1.2"\n'],
    ['a package without a name', '- channels: []\n'],
  ])('%s is refused by both', (_, text) => {
    expect(validate(read(text))).toBe(false);
    expect(() => parseFilterConfig(text, 'x.yaml')).toThrow();
  });
});
