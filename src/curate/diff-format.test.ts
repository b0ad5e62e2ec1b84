import { describe, expect, it } from 'vitest';
import type { DeclarativeConfig } from '../declcfg/types.js';
import { diffCatalogs, type CatalogDiff } from './diff.js';
import { diffMarkdown, diffText } from './diff-format.js';

function catalog(skips: string[] | undefined): DeclarativeConfig {
  return {
    packages: [{ schema: 'olm.package', name: 'p', defaultChannel: 'stable' }],
    channels: [
      {
        schema: 'olm.channel',
        package: 'p',
        name: 'stable',
        entries: [
          { name: 'p.v1' },
          { name: 'p.v2', replaces: 'p.v1', ...(skips === undefined ? {} : { skips }) },
        ],
      },
    ],
    bundles: [],
    deprecations: [],
    others: [],
  };
}

describe('diff of list-valued fields', () => {
  it('a skips list filled, emptied, changed and reordered', () => {
    const line = (a: string[] | undefined, b: string[] | undefined): string =>
      diffText(diffCatalogs(catalog(a), catalog(b)));
    expect(line(undefined, ['a', 'b'])).toBe('package p\n  ~ skips of p.v2 in channel stable: added a, b\n');
    expect(line(['a', 'b'], [])).toBe('package p\n  ~ skips of p.v2 in channel stable: removed a, b\n');
    expect(line(['a', 'b', 'c'], ['c', 'd', 'a'])).toBe(
      'package p\n  ~ skips of p.v2 in channel stable: added d; removed b\n',
    );
    expect(line(['a', 'b', 'c'], ['c', 'a', 'b', 'a'])).toBe('');
  });

  it('a diff without added and removed (built before they existed) still reads as a change', () => {
    const d = diffCatalogs(catalog(['a', 'b']), catalog(['b', 'c']));
    const old: CatalogDiff = {
      ...d,
      edgesChanged: d.edgesChanged.map(({ added: _a, removed: _r, ...e }) => e),
    };
    expect(diffText(old)).toBe(diffText(d));
    expect(diffMarkdown(old)).toContain(
      '- changed: skips of `p.v2` in channel `stable`: added `c`; removed `a`\n',
    );
  });
});
