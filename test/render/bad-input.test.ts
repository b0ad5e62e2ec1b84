/**
 * Bad bundle directories under testdata/render/<case>/: each fails with the one line in its
 * expected-error.txt, or renders with the warning in its expected-warning.txt.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { render } from '../../src/action/render/render.js';
import { formatPosition, OpmError } from '../../src/errors.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const casesDir = path.join(root, 'testdata/render/bad');
const cases = readdirSync(casesDir).sort();

describe('bad bundle directories', () => {
  for (const name of cases) {
    const ref = `testdata/render/bad/${name}`;
    const errFile = path.join(casesDir, name, 'expected-error.txt');
    const warnFile = path.join(casesDir, name, 'expected-warning.txt');
    if (existsSync(errFile)) {
      it(`${name}: fails with one line naming the file`, async () => {
        const expected = readFileSync(errFile, 'utf8').trimEnd();
        let message = '';
        try {
          await render({ refs: [ref], cwd: root });
        } catch (err) {
          message = err instanceof OpmError ? formatPosition(err.at) + err.message : String(err);
        }
        expect(message).toBe(expected);
        expect(message).not.toContain('\n');
      });
    } else if (existsSync(warnFile)) {
      it(`${name}: renders as opm does, with a warning`, async () => {
        const warnings: string[] = [];
        const cfg = await render({ refs: [ref], cwd: root, onWarning: (m) => warnings.push(m) });
        expect(warnings).toEqual([readFileSync(warnFile, 'utf8').trimEnd()]);
        expect(cfg.bundles).toHaveLength(1);
        expect(cfg.packages).toHaveLength(0);
        // Only the first document of the file is a bundle object.
        expect(cfg.bundles[0]?.properties?.filter((p) => p.type === 'olm.bundle.object')).toHaveLength(2);
      });
    }
  }

  it('every case has an expectation', () => {
    for (const name of cases) {
      const has = ['expected-error.txt', 'expected-warning.txt'].some((f) =>
        existsSync(path.join(casesDir, name, f)),
      );
      expect(has, name).toBe(true);
    }
  });
});
