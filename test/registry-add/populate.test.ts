// registry add's row changes over a new database in memory: the replaces walk with its skip pairs,
// the semver graph, heads and default channel, and opm's refusals, without images or a reference.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BundleRecord } from '../../src/action/registry-add/bundle-record.js';
import { addToContent } from '../../src/action/registry-add/registry-add.js';
import { newDatabaseContent } from '../../src/sqlite/write/schema-13.js';
import { writeDatabaseContent } from '../../src/sqlite/write/content.js';
import { readIndexDatabase } from '../../src/sqlite/read.js';
import type { SqlValue } from '../../src/sqlite/file.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-populate-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function bundle(pkg: string, version: string, more: Partial<BundleRecord> = {}): BundleRecord {
  const name = `${pkg}.v${version}`;
  const image = `example.com/${pkg}:${version}`;
  const csv = {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name },
    spec: { version },
  };
  return {
    name,
    packageName: pkg,
    channels: ['stable'],
    defaultChannel: '',
    image,
    version,
    skipRange: '',
    replaces: '',
    skips: [],
    substitutesFor: '',
    csvJson: `${JSON.stringify(csv)}\n`,
    bundleJson: `${JSON.stringify(csv)}\n`,
    images: [image],
    provided: [],
    required: [],
    dependencies: [],
    properties: [{ type: 'olm.package', value: JSON.stringify({ packageName: pkg, version }) }],
    ...more,
  };
}

/** channel_entry rows as `channel bundle depth -> replaced bundle`. */
function entries(rows: Map<string, SqlValue[][]>): string[] {
  const ce = rows.get('channel_entry') ?? [];
  const byId = new Map(ce.map((r) => [r[0], r]));
  return ce.map((r) => {
    const target = r[4] === null ? undefined : byId.get(r[4]);
    return `${String(r[1])} ${String(r[3])} ${String(r[5])}${target === undefined ? '' : ` -> ${String(target[3])}`}`;
  });
}

describe('replaces mode', () => {
  it('walks replaces from each head, a pair of entries per skipped name', () => {
    const c = newDatabaseContent(new Date(0));
    const err = addToContent(
      c,
      [
        bundle('etcd', '0.9.0', { defaultChannel: 'stable' }),
        bundle('etcd', '0.9.2', {
          replaces: 'etcd.v0.9.0',
          skips: ['etcd.v0.9.1'],
          defaultChannel: 'stable',
        }),
      ],
      'replaces',
    );
    expect(err).toBeUndefined();
    expect(entries(c.rows)).toEqual([
      'stable etcd.v0.9.2 0 -> etcd.v0.9.0',
      'stable etcd.v0.9.1 1',
      'stable etcd.v0.9.2 1 -> etcd.v0.9.1',
      'stable etcd.v0.9.0 2',
    ]);
    expect(c.rows.get('package')).toEqual([['etcd', 'stable']]);
    expect(c.rows.get('channel')).toEqual([['stable', 'etcd', 'etcd.v0.9.2']]);
    expect(c.rows.get('schema_migrations')).toEqual([[13, '1970-01-01 00:00:00']]);
  });

  it('refuses a bundle replacing a missing one, and keeps its bundle row (as opm commits it)', () => {
    const c = newDatabaseContent(new Date(0));
    const err = addToContent(c, [bundle('o', '2.0.0', { replaces: 'o.v1.0.0' })], 'replaces');
    expect(err).toBe('Invalid bundle o.v2.0.0, replaces nonexistent bundle o.v1.0.0');
    expect(c.rows.get('operatorbundle')).toHaveLength(1);
    expect(c.rows.get('package')).toEqual([]);
    expect(c.rows.get('channel_entry')).toEqual([]);
  });

  it('refuses the same bundle twice', () => {
    const c = newDatabaseContent(new Date(0));
    expect(addToContent(c, [bundle('a', '1.0.0')], 'replaces')).toBeUndefined();
    expect(addToContent(c, [bundle('a', '1.0.0')], 'replaces')).toMatch(/already/);
  });
});

describe('semver modes', () => {
  it('orders a channel by version whatever the order of adding', () => {
    const c = newDatabaseContent(new Date(0));
    for (const v of ['1.0.0', '2.0.0', '1.5.0'])
      expect(addToContent(c, [bundle('sv', v, { defaultChannel: 'stable' })], 'semver')).toBeUndefined();
    expect(entries(c.rows)).toEqual([
      'stable sv.v2.0.0 0 -> sv.v1.5.0',
      'stable sv.v1.5.0 1 -> sv.v1.0.0',
      'stable sv.v1.0.0 2',
    ]);
    // Manifests kept for the head only.
    const ob = c.rows.get('operatorbundle') ?? [];
    expect(ob.filter((r) => r[1] !== null).map((r) => r[0])).toEqual(['sv.v2.0.0']);
  });

  it('refuses a version already in the channel', () => {
    const c = newDatabaseContent(new Date(0));
    expect(addToContent(c, [bundle('sv', '1.0.0', { defaultChannel: 'stable' })], 'semver')).toBeUndefined();
    expect(
      addToContent(c, [bundle('sv', '1.0.0', { name: 'sv.other', image: 'example.com/sv:other' })], 'semver'),
    ).toBe('Bundle version 1.0.0 already added to index');
  });
});

describe('the written file', () => {
  it('reads back as the catalog of the added bundles', () => {
    const c = newDatabaseContent(new Date(0));
    addToContent(
      c,
      [
        bundle('etcd', '0.9.0', { defaultChannel: 'stable' }),
        bundle('etcd', '0.9.2', { replaces: 'etcd.v0.9.0', defaultChannel: 'stable' }),
      ],
      'replaces',
    );
    const file = path.join(tmp, 'index.db');
    writeDatabaseContent(file, c);
    const cfg = readIndexDatabase(file);
    expect(cfg.packages.map((p) => [p.name, p.defaultChannel])).toEqual([['etcd', 'stable']]);
    expect(cfg.bundles.map((b) => b.name).sort()).toEqual(['etcd.v0.9.0', 'etcd.v0.9.2']);
  });
});
