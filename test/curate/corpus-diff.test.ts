// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
// `diff` of a real catalog against edited copies (written by this test into a temporary folder):
// each kind of change is reported, an edit that strands bundles is reported as upgrade impact, and
// the catalog compared with itself is equal.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { render } from '../../src/action/render/render.js';
import type { CatalogDiff } from '../../src/curate/diff.js';
import type { Bundle, Channel, DeclarativeConfig } from '../../src/declcfg/types.js';
import { writeCatalogDir } from '../../src/declcfg/write-fs.js';
import { corpusPath } from '../corpus.js';
import { runOpm } from '../run-cli.js';

const catalogDir = corpusPath('community-catalog-v4.21');
let original: DeclarativeConfig;
let tmp: string;
let copies = 0;

beforeAll(async () => {
  original = await render({ refs: [catalogDir] });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-diff-corpus-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const channel = (c: DeclarativeConfig, pkg: string, name: string): Channel =>
  c.channels.find((x) => x.package === pkg && x.name === name) as Channel;
const bundle = (c: DeclarativeConfig, name: string): Bundle =>
  c.bundles.find((b) => b.name === name) as Bundle;

/** Write an edited copy of the catalog and diff the original against it (or it against the original). */
async function diffEdited(
  edit: (c: DeclarativeConfig) => void,
  reverse = false,
): Promise<{ code: number; diff: CatalogDiff; text: string }> {
  const copy = structuredClone(original);
  edit(copy);
  const dir = path.join(tmp, `copy-${++copies}`);
  await writeCatalogDir(copy, dir, 'yaml');
  const [a, b] = reverse ? [dir, catalogDir] : [catalogDir, dir];
  const json = await runOpm(['diff', a, b, '-o', 'json']);
  expect(json.stderr).toBe('');
  const text = await runOpm(['diff', a, b]);
  return { code: json.code, diff: JSON.parse(json.stdout) as CatalogDiff, text: text.stdout };
}

/** The lists of a diff that are not empty. */
const kinds = (d: CatalogDiff): string[] =>
  Object.entries(d)
    .filter(([, v]) => (v as unknown[]).length > 0)
    .map(([k]) => k);

describe.sequential('diff on community-catalog-v4.21', () => {
  it('the catalog against itself, and against a copy written again: equal, exit 0, no output', async () => {
    const self = await runOpm(['diff', catalogDir, catalogDir]);
    expect(self).toEqual({ code: 0, stdout: '', stderr: '' });
    const rewritten = await diffEdited(() => undefined);
    expect(rewritten.code).toBe(0);
    expect(kinds(rewritten.diff)).toEqual([]);
  });

  it('packages removed and added (a removed package is upgrade impact)', async () => {
    const drop = (c: DeclarativeConfig): void => {
      const keep = <T extends { package?: string; name?: string; schema: string }>(x: T): boolean =>
        (x.schema === 'olm.package' ? x.name : x.package) !== 'cat-facts-operator';
      c.packages = c.packages.filter(keep);
      c.channels = c.channels.filter(keep);
      c.bundles = c.bundles.filter(keep);
    };
    const removed = await diffEdited(drop);
    expect(removed.code).toBe(1);
    expect(removed.diff.packagesRemoved).toEqual(['cat-facts-operator']);
    expect(kinds(removed.diff)).toEqual(['packagesRemoved', 'upgradeImpact']);
    expect(new Set(removed.diff.upgradeImpact.map((i) => i.reason))).toEqual(new Set(['package-removed']));
    const added = await diffEdited(drop, true);
    expect(kinds(added.diff)).toEqual(['packagesAdded']);
  });

  it('a default channel change, a channel added and one removed', async () => {
    const r = await diffEdited((c) => {
      const quay = c.packages.find((p) => p.name === 'project-quay');
      if (quay) quay.defaultChannel = 'stable-3.16';
      c.channels = c.channels.filter((x) => !(x.package === 'project-quay' && x.name === 'stable-3.6'));
      c.channels.push({ ...structuredClone(channel(c, 'kube-green', 'alpha')), name: 'beta' });
    });
    expect(r.diff.defaultChannelsChanged).toEqual([
      { package: 'project-quay', before: 'stable-3.17', after: 'stable-3.16' },
    ]);
    expect(r.diff.channelsAdded).toEqual([{ package: 'kube-green', channel: 'beta' }]);
    expect(r.diff.channelsRemoved).toEqual([{ package: 'project-quay', channel: 'stable-3.6' }]);
    // Users subscribed to the removed channel lose it; the bundles stay in other channels' hands.
    expect(new Set(r.diff.upgradeImpact.map((i) => `${i.channel} ${i.reason}`))).toEqual(
      new Set(['stable-3.6 channel-removed']),
    );
    expect(r.text).toContain('~ default channel stable-3.17 → stable-3.16');
  });

  it('a bundle added with its entry, and the oldest removed without upgrade impact', async () => {
    const r = await diffEdited((c) => {
      const next = structuredClone(bundle(c, 'kube-green.v0.7.1'));
      next.name = 'kube-green.v0.8.0';
      next.image = 'docker.io/kubegreen/kube-green-bundle:0.8.0';
      next.properties = next.properties?.map((p) =>
        p.type === 'olm.package'
          ? { type: p.type, value: { packageName: 'kube-green', version: '0.8.0' } }
          : p,
      );
      c.bundles.push(next);
      const alpha = channel(c, 'kube-green', 'alpha');
      alpha.entries = [
        ...(alpha.entries ?? []).filter((e) => e.name !== 'kube-green.v0.3.0'),
        { name: 'kube-green.v0.8.0', replaces: 'kube-green.v0.7.1' },
      ];
      c.bundles = c.bundles.filter((b) => b.name !== 'kube-green.v0.3.0');
    });
    expect(r.diff.bundlesAdded).toEqual([{ package: 'kube-green', bundle: 'kube-green.v0.8.0' }]);
    expect(r.diff.bundlesRemoved).toEqual([{ package: 'kube-green', bundle: 'kube-green.v0.3.0' }]);
    expect(r.diff.entriesAdded).toEqual([
      { package: 'kube-green', channel: 'alpha', bundle: 'kube-green.v0.8.0' },
    ]);
    expect(r.diff.entriesRemoved).toEqual([
      { package: 'kube-green', channel: 'alpha', bundle: 'kube-green.v0.3.0' },
    ]);
    // kube-green.v0.3.1 still replaces v0.3.0: clusters running it still upgrade.
    expect(r.diff.upgradeImpact).toEqual([]);
  });

  it('a changed upgrade edge that strands bundles is upgrade impact', async () => {
    const r = await diffEdited((c) => {
      const e = channel(c, 'kube-green', 'alpha').entries?.find((x) => x.name === 'kube-green.v0.6.0');
      if (e) delete e.replaces;
    });
    expect(r.diff.edgesChanged).toEqual([
      {
        package: 'kube-green',
        channel: 'alpha',
        bundle: 'kube-green.v0.6.0',
        field: 'replaces',
        before: 'kube-green.v0.5.2',
        after: '',
      },
    ]);
    const stranded = ['kube-green.v0.3.0', 'kube-green.v0.3.1', 'kube-green.v0.4.0', 'kube-green.v0.4.1'];
    stranded.push('kube-green.v0.5.0', 'kube-green.v0.5.1', 'kube-green.v0.5.2');
    expect(r.diff.upgradeImpact).toEqual(
      stranded.map((b) => ({ package: 'kube-green', channel: 'alpha', bundle: b, reason: 'stranded' })),
    );
    expect(r.text).toContain(
      'users on kube-green.v0.5.2 in channel alpha of package kube-green can no longer upgrade',
    );
    const onlyImpact = await runOpm([
      'diff',
      catalogDir,
      path.join(tmp, `copy-${copies}`),
      '--fail-on',
      'impact',
    ]);
    expect(onlyImpact.code).toBe(1);
  });

  it('skips and skipRange changes that keep every path: reported, no impact, --fail-on impact exits 0', async () => {
    const r = await diffEdited((c) => {
      const e = channel(c, 'kube-green', 'alpha').entries?.find((x) => x.name === 'kube-green.v0.7.1');
      if (e) {
        e.skips = ['kube-green.v0.6.0'];
        e.skipRange = '>=0.6.0 <0.7.1';
      }
    });
    expect(r.diff.edgesChanged.map((x) => `${x.bundle} ${x.field}`)).toEqual([
      'kube-green.v0.7.1 skips',
      'kube-green.v0.7.1 skipRange',
    ]);
    expect(r.text).toContain('~ skips of kube-green.v0.7.1 in channel alpha: added kube-green.v0.6.0\n');
    expect(r.text).toContain('~ skipRange of kube-green.v0.7.1 in channel alpha: (none) → >=0.6.0 <0.7.1\n');
    expect(r.diff.upgradeImpact).toEqual([]);
    const dir = path.join(tmp, `copy-${copies}`);
    expect((await runOpm(['diff', catalogDir, dir, '--fail-on', 'impact'])).code).toBe(0);
    expect((await runOpm(['diff', catalogDir, dir])).code).toBe(1);
  });

  it('deprecations added and removed', async () => {
    const deprecate = (c: DeclarativeConfig): void => {
      c.deprecations.push({
        schema: 'olm.deprecations',
        package: 'kube-green',
        entries: [{ reference: { schema: 'olm.bundle', name: 'kube-green.v0.4.0' }, message: 'use 0.4.1' }],
      });
    };
    const added = await diffEdited(deprecate);
    const dep = {
      package: 'kube-green',
      schema: 'olm.bundle',
      name: 'kube-green.v0.4.0',
      message: 'use 0.4.1',
    };
    expect(added.diff.deprecationsAdded).toEqual([dep]);
    expect(kinds(added.diff)).toEqual(['deprecationsAdded']);
    const removed = await diffEdited(deprecate, true);
    expect(removed.diff.deprecationsRemoved).toEqual([dep]);
  });

  it('a released bundle whose image, related images and a property changed', async () => {
    const r = await diffEdited((c) => {
      const b = bundle(c, 'kube-green.v0.5.0');
      b.image = `${b.image}-rebuilt`;
      b.relatedImages = [...(b.relatedImages ?? []), { name: 'extra', image: 'docker.io/library/busybox:1' }];
      b.properties = [...(b.properties ?? []), { type: 'olm.maxOpenShiftVersion', value: '4.22' }];
    });
    expect(r.diff.bundlesChanged).toEqual([
      {
        package: 'kube-green',
        bundle: 'kube-green.v0.5.0',
        changed: ['image', 'relatedImages', 'olm.maxOpenShiftVersion'],
        added: {
          relatedImages: [{ name: 'extra', image: 'docker.io/library/busybox:1' }],
          'olm.maxOpenShiftVersion': ['4.22'],
        },
        removed: {},
      },
    ]);
    expect(r.text).toContain('    relatedImages: added docker.io/library/busybox:1 (extra)\n');
    expect(r.text).toContain('    olm.maxOpenShiftVersion: added "4.22"\n');
    expect(kinds(r.diff)).toEqual(['bundlesChanged']);
  });
});
