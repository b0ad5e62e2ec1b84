/**
 * Property sources opm-testdata and the community corpus do not exercise: a properties file, a
 * JSON dependencies file (values kept as written), the olm.properties CSV annotation, required
 * CRDs and API services, owned API services, v1beta1 CRD versions and a numeric release.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { render } from '../../src/action/render/render.js';
import { RawJson } from '../../src/go/raw-json.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Each property as type and exact JSON text (RawJson text, or compact JSON of built values). */
function texts(props: { type: string; value: unknown }[] | undefined): [string, string][] {
  return (props ?? []).map((p) => [
    p.type,
    p.value instanceof RawJson ? p.value.text : JSON.stringify(p.value),
  ]);
}

describe('bundle properties from every source', () => {
  it('collects, de-duplicates and sorts them as opm does', async () => {
    const cfg = await render({
      refs: ['testdata/render/good/properties-and-dependencies'],
      cwd: root,
      imageRefTemplate: 'quay.io/demo/bundle:{{.Version}}',
    });
    const b = cfg.bundles[0];
    expect(b?.name).toBe('demo.v1.2.0');
    expect(b?.image).toBe('quay.io/demo/bundle:1.2.0');
    expect(texts(b?.properties).filter(([t]) => t !== 'olm.bundle.object')).toEqual([
      ['com.example.flag', '{"on" : true}'],
      ['com.example.tier', '{"level":1.1,"name":"a\\u0026b"}'],
      ['olm.gvk', '{"group":"example.com","kind":"Widget","version":"v1"}'],
      ['olm.gvk', '{"group":"example.com","kind":"Widget","version":"v2alpha1"}'],
      ['olm.gvk', '{"group":"metrics.example.com","kind":"Usage","version":"v1beta1"}'],
      ['olm.gvk.required', '{"group":"core.other.io","kind":"Thing","version":"v1"}'],
      ['olm.gvk.required', '{"group":"dep.io","kind":"Dep","version":"v1"}'],
      ['olm.gvk.required', '{"group":"other.io","kind":"Gadget","version":"v2"}'],
      ['olm.label', '{"label" : "needs-<x>"}'],
      ['olm.maxOpenShiftVersion', '"4.15"'],
      ['olm.package', '{"packageName":"demo","version":"1.2.0","release":"3"}'],
      ['olm.package.required', '{"packageName":"base","versionRange":">=1.0.0 <2.0.0"}'],
    ]);
    expect(b?.properties?.slice(-2).map((p) => p.type)).toEqual(['olm.bundle.object', 'olm.bundle.object']);
    expect(b?.relatedImages).toEqual([
      { name: '', image: '' },
      { name: '', image: 'quay.io/demo/bundle:1.2.0' },
      { name: '', image: 'quay.io/demo/op:1.2.0' },
    ]);
  });

  it('an olm.package in the olm.properties annotation wins over the annotations file', async () => {
    const { cp, mkdtemp, readFile, rm, writeFile } = await import('node:fs/promises');
    const os = await import('node:os');
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'opm-props-'));
    try {
      const dir = path.join(tmp, 'b');
      await cp(path.join(root, 'testdata/render/good/properties-and-dependencies'), dir, { recursive: true });
      const csvFile = path.join(dir, 'manifests/demo.clusterserviceversion.yaml');
      const csv = await readFile(csvFile, 'utf8');
      await writeFile(
        csvFile,
        csv.replace(
          '[{"type": "olm.maxOpenShiftVersion"',
          '[{"type":"olm.package","value":{"packageName":"other","version":"9.9.9"}}, {"type": "olm.maxOpenShiftVersion"',
        ),
      );
      const cfg = await render({ refs: [dir] });
      expect(texts(cfg.bundles[0]?.properties).filter(([t]) => t === 'olm.package')).toEqual([
        ['olm.package', '{"packageName":"other","version":"9.9.9"}'],
      ]);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe('JSON output of built properties', () => {
  it('writes olm.package in opm field order: packageName, version, release', async () => {
    const { runOpm } = await import('../run-cli.js');
    const r = await runOpm(
      [
        'render',
        'testdata/render/good/properties-and-dependencies',
        '--alpha-image-ref-template',
        'quay.io/demo/bundle:{{.Version}}',
      ],
      { cwd: root },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      [
        '            "type": "olm.package",',
        '            "value": {',
        '                "packageName": "demo",',
        '                "version": "1.2.0",',
        '                "release": "3"',
        '            }',
      ].join('\n'),
    );
  });
});
