import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ValidateFunction } from 'ajv';
import { walkCatalogDirSync } from '../declcfg/load-walk.js';
import { parseCatalogBytes } from '../declcfg/parse.js';
import type { JsonObject } from '../go/json-value.js';
import { schemasDir } from './schema.js';
import {
  compileValidators,
  standaloneSource,
  validatorsFromModule,
  type CompiledValidators,
} from './standalone.js';

/** Evaluate generated CommonJS source as a module of this directory (so `ajv` resolves). */
function evaluate(source: string): unknown {
  const mod: { exports: Record<string, unknown> } = { exports: {} };
  const run = new Function('require', 'module', 'exports', source);
  run(createRequire(import.meta.url), mod, mod.exports);
  return mod.exports;
}

function outcome(v: ValidateFunction, data: unknown): { valid: boolean; errors: unknown } {
  const valid = v(data);
  return { valid, errors: v.errors ?? null };
}

function pairs(a: CompiledValidators, b: CompiledValidators): [string, ValidateFunction, ValidateFunction][] {
  return [
    ['meta', a.meta, b.meta],
    ['olmPackage', a.olmPackage, b.olmPackage],
    ['olmChannel', a.olmChannel, b.olmChannel],
    ['olmBundle', a.olmBundle, b.olmBundle],
    ['olmDeprecations', a.olmDeprecations, b.olmDeprecations],
  ];
}

/** Raw blobs of every catalog fixture, plus hand-made invalid ones. */
function samples(): JsonObject[] {
  const blobs: JsonObject[] = [
    { schema: '' },
    { schema: 'olm.package', name: 3, icon: { base64data: 1 } },
    { schema: 'olm.channel', name: 'c', package: 'p', entries: [{ name: 'a', skips: [1] }, {}] },
    {
      schema: 'olm.bundle',
      name: 'b',
      package: 'p',
      image: '',
      properties: [
        { type: 'olm.package', value: { packageName: 1 } },
        { type: 'olm.gvk', value: { group: 'g', version: 'v1' } },
        { type: 'olm.bundle.object', value: { data: 'not base64!' } },
        { type: 'olm.constraint', value: { failureMessage: 'x', cel: { rule: 'true' }, gvk: {} } },
        { type: 'olm.csv.metadata', value: { installModes: [{ type: 'Everywhere', supported: 'yes' }] } },
        { type: '', value: null },
      ],
    },
    {
      schema: 'olm.deprecations',
      package: 'p',
      entries: [{ reference: { schema: 'olm.package', name: 'x' } }],
    },
  ];
  const root = path.join(import.meta.dirname, '../../testdata');
  for (const group of ['validate', 'load']) {
    for (const name of readdirSync(path.join(root, group))) {
      const dir = path.join(root, group, name, 'catalog');
      const walked = walkCatalogDirSync(dir);
      for (const f of walked.files) {
        for (const b of parseCatalogBytes(readFileSync(f.abs)).blobs) blobs.push(b.value);
      }
    }
  }
  return blobs;
}

describe('precompiled validators', () => {
  const dir = schemasDir();

  it('give the same results and errors as validators compiled at run time', () => {
    const pre = validatorsFromModule(evaluate(standaloneSource(dir)), dir);
    expect(pre).toBeDefined();
    const now = compileValidators(dir);
    const blobs = samples();
    expect(blobs.length).toBeGreaterThan(50);
    let failures = 0;
    for (const blob of blobs) {
      for (const [name, runtime, precompiled] of pre === undefined ? [] : pairs(now, pre)) {
        const a = outcome(runtime, blob);
        expect(outcome(precompiled, blob), `${name} on ${JSON.stringify(blob).slice(0, 200)}`).toEqual(a);
        if (!a.valid) failures++;
      }
    }
    // The samples exercise failing validations, not only passing ones.
    expect(failures).toBeGreaterThan(20);
  });

  it('are not used when compiled from other schema texts', () => {
    const mod = evaluate(
      standaloneSource(dir).replace(/exports\.schemaHash = "[0-9a-f]+"/, 'exports.schemaHash = "0"'),
    );
    expect(validatorsFromModule(mod, dir)).toBeUndefined();
  });
});
