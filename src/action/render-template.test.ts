// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OpmError } from '../errors.js';
import { parseCatalogText } from '../declcfg/parse.js';
import { haveCorpus } from '../../test/corpus.js';
import { errorOf } from '../../test/error-of.js';
import { templateCases, writeBundleDirMap } from '../../test/template-corpus.js';
import { readBundleDirMap } from '../template/bundle-dirs.js';
import type { ImageSource } from '../oci/image-source.js';
import { renderTemplate, type RenderTemplateOptions } from './render-template.js';
import { PATIENCE_MS } from '../../test/patience.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-template-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** An image source that must not be used: these tests never pull. */
const noPulls: ImageSource = {
  pull: (ref) => Promise.reject(new OpmError(`test tried to pull ${ref}`)),
};

describe.runIf(haveCorpus())('renderTemplate over the community corpus (v4.21)', () => {
  const cases = templateCases();

  it('finds the six packages with a v4.21 template', () => {
    expect(cases.map((c) => c.pkg)).toEqual([
      'apicurio-registry-3',
      'aws-neuron-operator',
      'clusterpulse',
      'koku-metrics-operator',
      'kube-green',
      'patterns-operator',
    ]);
  });

  it.each(cases.map((c) => [c.pkg, c] as const))(
    '%s: packages, channels and bundles match the catalog',
    async (_p, c) => {
      const dir = mkdtempSync(path.join(tmp, `${c.pkg}-`));
      const bundleDirs = await readBundleDirMap(writeBundleDirMap(dir, c.bundleDirs), dir);
      const { type, config } = await renderTemplate({
        text: readFileSync(c.templateFile, 'utf8'),
        label: c.templateFile,
        migrateLevel: 'bundle-object-to-csv-metadata',
        bundleDirs,
        imageSource: noPulls,
        // The published catalogs were rendered by opm 1.46, which the packages' Makefiles pin.
        semverCompat: 'v1.46',
      });
      expect(type).toBe(c.templateType === 'olm.semver' ? 'semver' : 'basic');
      const expected = parseCatalogText(readFileSync(c.catalogFile, 'utf8')).blobs.map((b) => b.value);
      const ofSchema = (s: string) => expected.filter((b) => b['schema'] === s);
      const pkg = ofSchema('olm.package')[0];
      expect(config.packages.map((p) => [p.name, p.defaultChannel])).toEqual([
        [pkg?.['name'], pkg?.['defaultChannel']],
      ]);
      const channels = Object.fromEntries(
        ofSchema('olm.channel').map((ch) => [String(ch['name']), ch['entries']]),
      );
      expect(Object.fromEntries(config.channels.map((ch) => [ch.name, ch.entries]))).toEqual(channels);
      expect(config.bundles.map((b) => b.name).sort()).toEqual(
        ofSchema('olm.bundle')
          .map((b) => String(b['name']))
          .sort(),
      );
      for (const b of config.bundles) expect(c.bundleDirs.has(b.image)).toBe(true);
    },
  );
});

describe('renderTemplate errors', () => {
  const bundleDir = (v: string) => path.resolve('testdata/templates/bundles', `foo-v${v}`);

  async function run(text: string, extra: Partial<RenderTemplateOptions> = {}) {
    return renderTemplate({ text, label: 'tpl.yaml', imageSource: noPulls, ...extra });
  }

  it('error/unknown schema names the template', async () => {
    const e = await errorOf(run('schema: olm.template.fancy\n'));
    expect(e.message).toBe('auto-detecting template type: unknown template schema: olm.template.fancy');
    expect(e.at).toEqual({ file: 'tpl.yaml', line: 1 });
  });

  it('error/missing schema', async () => {
    const e = await errorOf(run('entries: []\n'));
    expect(e.message).toBe("auto-detecting template type: template input missing required 'schema' field");
  });

  it('error/bundle entry with extra fields, at its line', async () => {
    const e = await errorOf(
      run(
        'schema: olm.template.basic\nentries:\n- schema: olm.package\n  name: foo\n- schema: olm.bundle\n  image: x\n  package: foo\n',
      ),
    );
    expect(e.message).toBe('rendering template: unexpected fields present in basic template bundle');
    expect(e.at).toEqual({ file: 'tpl.yaml', line: 5 });
    expect(e.hint).toContain('"package"');
  });

  it('error/image neither mapped nor pullable, at its entry', async () => {
    const dir = mkdtempSync(path.join(tmp, 'unmapped-'));
    const bundleDirs = await readBundleDirMap(
      writeBundleDirMap(dir, new Map([['quay.io/x/foo:0.1.0', bundleDir('0.1.0')]])),
      dir,
    );
    const e = await errorOf(
      run(
        'schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: quay.io/x/foo:0.1.0\n- schema: olm.bundle\n  image: quay.io/x/foo:9.9.9\n',
        { bundleDirs },
      ),
    );
    expect(e.message).toContain('rendering template: ');
    expect(e.message).toContain('quay.io/x/foo:9.9.9');
    expect(e.at).toEqual({ file: 'tpl.yaml', line: 5 });
  });

  it('error/mapped bundle directory that does not exist', async () => {
    const dir = mkdtempSync(path.join(tmp, 'missing-'));
    const bundleDirs = await readBundleDirMap(
      writeBundleDirMap(dir, new Map([['quay.io/x/foo:0.1.0', path.join(dir, 'nope')]])),
      dir,
    );
    const e = await errorOf(
      run('schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: quay.io/x/foo:0.1.0\n', {
        bundleDirs,
      }),
    );
    expect(e.message).toContain(
      `bundle directory "${path.join(dir, 'nope')}" for image "quay.io/x/foo:0.1.0" does not exist`,
    );
    expect(e.at).toEqual({ file: 'tpl.yaml', line: 3 });
  });

  it('error/semver template with an invalid bundle version', async () => {
    const e = await errorOf(
      run('schema: olm.semver\nstable:\n  bundles:\n  - image: quay.io/x/foo:0.1.0\n', {
        bundleDirs: {
          file: 'map.yaml',
          dirs: new Map([['quay.io/x/foo:0.1.0', path.resolve('testdata/templates/bundles/bad-version')]]),
        },
      }),
    );
    expect(e.message).toMatch(
      /^rendering template: render: unable to post-process bundle info: bundle ".*" has invalid version/,
    );
    expect(e.at).toEqual({ file: 'tpl.yaml', line: 4 });
  });

  it('error/unknown migration level before anything is rendered', async () => {
    const e = await errorOf(run('schema: olm.template.basic\nentries: []\n', { migrateLevel: 'nope' }));
    expect(e.message).toBe('unknown migration level "nope"');
  });
});

describe('renderTemplate pulls', () => {
  it('pulls images missing from the map, each once, at most `concurrency` at a time', async () => {
    const dirs = ['0.1.0', '0.2.0', '0.2.1'].map((v) =>
      path.resolve('testdata/templates/bundles', `foo-v${v}`),
    );
    const pulls: string[] = [];
    let active = 0;
    let maxActive = 0;
    let bothStarted: () => void = () => undefined;
    const overlap = new Promise<void>((r) => (bothStarted = r));
    const source: ImageSource = {
      async pull(ref) {
        pulls.push(ref);
        active++;
        maxActive = Math.max(maxActive, active);
        if (active === 2) bothStarted();
        // hold each pull until the other one has started (or give up, and the assertion below fails);
        // however busy the machine, the other starts long before that
        await Promise.race([overlap, new Promise((r) => setTimeout(r, PATIENCE_MS).unref())]);
        active--;
        const v = ref.slice(ref.lastIndexOf(':') + 1);
        const root = dirs.find((d) => d.endsWith(`foo-v${v}`)) ?? '';
        return {
          ref,
          digest: 'sha256:' + '0'.repeat(64),
          labels: { 'operators.operatorframework.io.bundle.package.v1': 'foo' },
          root,
          release: () => Promise.resolve(),
        };
      },
    };
    const mapped = new Map([['quay.io/example/foo:0.1.0', dirs[0] ?? '']]);
    const { config } = await renderTemplate({
      text: `schema: olm.semver
stable:
  bundles:
  - image: quay.io/example/foo:0.1.0
  - image: quay.io/example/foo:0.2.0
  - image: quay.io/example/foo:0.2.1
fast:
  bundles:
  - image: quay.io/example/foo:0.2.1
`,
      label: 'tpl.yaml',
      bundleDirs: { file: 'map.yaml', dirs: mapped },
      imageSource: source,
      concurrency: 2,
    });
    expect(pulls.sort()).toEqual(['quay.io/example/foo:0.2.0', 'quay.io/example/foo:0.2.1']);
    expect(maxActive).toBe(2);
    expect(config.bundles.map((b) => b.image).sort()).toEqual([
      'quay.io/example/foo:0.1.0',
      'quay.io/example/foo:0.2.0',
      'quay.io/example/foo:0.2.1',
    ]);
    expect(config.channels.map((c) => c.name)).toEqual(['fast-v0.2', 'stable-v0.1', 'stable-v0.2']);
  });
});
