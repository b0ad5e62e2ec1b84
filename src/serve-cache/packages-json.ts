/**
 * The package index (catalog-queries/package-index.ts) as opm's cache keeps it under `packages.json`.
 *
 * Its JSON is Go's encoding of those structs: field names partly capitalised (`Channels`, `Name`,
 * `Head`, `Bundles`), maps with their keys in byte order, `icon` null when there is none, `skips`
 * null when there are none, deprecations left out when absent.
 */
import { goStruct, type GoStruct } from '../go/go-struct.js';
import { marshal } from '../go/json-encode.js';
import { isRecord } from '../go/json-value.js';
import { compareUtf8 } from '../go/utf8.js';
import { field } from '../go/json-decode.js';
import {
  PackageIndexError,
  type IndexBundle,
  type IndexChannel,
  type IndexPackage,
  type PackageIndex,
} from '../catalog-queries/package-index.js';

function sortedMap<V>(m: ReadonlyMap<string, V>, f: (v: V) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const k of [...m.keys()].sort(compareUtf8)) out[k] = f(m.get(k) as V);
  return out;
}

function deprecation(d: { message: string } | undefined): GoStruct | undefined {
  return d === undefined ? undefined : goStruct({ message: d.message });
}

/** `json.Marshal` of the index, the value of the `packages.json` key. */
export function encodePackageIndex(index: PackageIndex): Uint8Array {
  const value = sortedMap(index, (p) =>
    goStruct({
      name: p.name,
      description: p.description,
      icon: p.icon === null ? null : goStruct({ base64data: p.icon.base64data, mediatype: p.icon.mediatype }),
      defaultChannel: p.defaultChannel,
      Channels: sortedMap(p.channels, (c) =>
        goStruct({
          Name: c.name,
          Head: c.head,
          Bundles: sortedMap(c.bundles, (b) =>
            goStruct({
              package: b.package,
              channel: b.channel,
              name: b.name,
              replaces: b.replaces,
              skips: b.skips,
            }),
          ),
          deprecation: deprecation(c.deprecation),
        }),
      ),
      deprecation: deprecation(p.deprecation),
    }),
  );
  return Buffer.from(marshal(value), 'utf8');
}

function str(o: Record<string, unknown>, name: string, where: string): string {
  const v = field(o, name);
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new PackageIndexError(`${where}: ${name} is not a string`);
  return v;
}

function obj(v: unknown, where: string): Record<string, unknown> {
  if (!isRecord(v)) throw new PackageIndexError(`${where} is not an object`);
  return v;
}

function optDeprecation(o: Record<string, unknown>, where: string): { message: string } | undefined {
  const d = field(o, 'deprecation');
  if (d === undefined || d === null) return undefined;
  return { message: str(obj(d, `${where} deprecation`), 'message', where) };
}

function entries(v: unknown, where: string): [string, Record<string, unknown>][] {
  if (v === undefined || v === null) return [];
  return Object.entries(obj(v, where)).map(([k, x]) => [k, obj(x, `${where} ${JSON.stringify(k)}`)]);
}

/** Read `packages.json` as opm's json.Unmarshal does (field names in any case). */
export function decodePackageIndex(bytes: Uint8Array): PackageIndex {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (err) {
    throw new PackageIndexError(`packages.json: ${(err as Error).message}`);
  }
  const index: PackageIndex = new Map();
  for (const [key, p] of entries(parsed, 'packages.json')) {
    const where = `packages.json: package ${JSON.stringify(key)}`;
    const icon = field(p, 'icon');
    const channels = new Map<string, IndexChannel>();
    for (const [chKey, c] of entries(field(p, 'Channels'), `${where} channels`)) {
      const chWhere = `${where}, channel ${JSON.stringify(chKey)}`;
      const bundles = new Map<string, IndexBundle>();
      for (const [bKey, b] of entries(field(c, 'Bundles'), `${chWhere} bundles`)) {
        const bWhere = `${chWhere}, bundle ${JSON.stringify(bKey)}`;
        const skips = field(b, 'skips');
        if (
          skips !== undefined &&
          skips !== null &&
          !(Array.isArray(skips) && skips.every((s) => typeof s === 'string'))
        ) {
          throw new PackageIndexError(`${bWhere}: skips is not a list of strings`);
        }
        bundles.set(bKey, {
          package: str(b, 'package', bWhere),
          channel: str(b, 'channel', bWhere),
          name: str(b, 'name', bWhere),
          replaces: str(b, 'replaces', bWhere),
          skips: Array.isArray(skips) ? (skips as string[]) : null,
        });
      }
      const ch: IndexChannel = { name: str(c, 'Name', chWhere), head: str(c, 'Head', chWhere), bundles };
      const d = optDeprecation(c, chWhere);
      if (d !== undefined) ch.deprecation = d;
      channels.set(chKey, ch);
    }
    const pkg: IndexPackage = {
      name: str(p, 'name', where),
      description: str(p, 'description', where),
      icon:
        icon === undefined || icon === null
          ? null
          : {
              base64data: str(obj(icon, `${where} icon`), 'base64data', where),
              mediatype: str(obj(icon, `${where} icon`), 'mediatype', where),
            },
      defaultChannel: str(p, 'defaultChannel', where),
      channels,
    };
    const d = optDeprecation(p, where);
    if (d !== undefined) pkg.deprecation = d;
    index.set(key, pkg);
  }
  return index;
}
