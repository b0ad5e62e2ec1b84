/**
 * A bundle whose manifests write a key twice in one mapping: opm keeps the last value and renders
 * the bundle; opm-ts renders it the same way and names each duplicate on stderr.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';

const dir = 'testdata/render/good/duplicate-keys';

describe('duplicate keys in bundle manifests', () => {
  it('renders, keeping the last value, with one warning per duplicate naming file, line and key', async () => {
    const r = await runOpm(['render', dir, '-o', 'json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(readFileSync(`${dir}/expected-warnings.txt`, 'utf8'));
    const bundle = JSON.parse(r.stdout) as { properties: { type: string; value: unknown }[] };
    const crd = bundle.properties.find(
      (p) =>
        p.type === 'olm.bundle.object' &&
        Buffer.from(String((p.value as { data: string }).data), 'base64')
          .toString()
          .includes('CustomResourceDefinition'),
    );
    const object = JSON.parse(Buffer.from((crd?.value as { data: string }).data, 'base64').toString()) as {
      spec: { versions: { subresources?: unknown }[] };
    };
    expect(object.spec.versions[0]?.subresources).toEqual({ scale: {} });
  });
});

describe('duplicate keys in a template', () => {
  it('renders with the last value and names the key on stderr', async () => {
    const file = 'testdata/templates/duplicate-keys/template.yaml';
    const r = await runOpm(['alpha', 'render-template', 'basic', file, '-o', 'yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('defaultChannel: stable\n');
    expect(r.stderr).toBe(
      `warning: ${file}:7: key defaultChannel is written twice in one mapping; the last value is kept (as in opm)\n`,
    );
  });
});
