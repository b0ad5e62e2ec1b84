import { describe, expect, it } from 'vitest';
import { OpmError } from '../../errors.js';
import { emptyConf, mergeConf } from './config.js';
import { parseRegistriesConf } from './parse.js';

function parseError(text: string, opts = {}): OpmError {
  try {
    parseRegistriesConf(text, '/conf/registries.conf', opts);
  } catch (err) {
    if (err instanceof OpmError) return err;
    throw err;
  }
  throw new Error('expected a parse error');
}

describe('parseRegistriesConf', () => {
  it('reads registry tables, mirrors and their settings', () => {
    const conf = parseRegistriesConf(
      `
unqualified-search-registries = ["quay.io"]
short-name-mode = "permissive"

[[registry]]
prefix = "example.com/foo"
location = "internal.example.net/bar/"
insecure = true

[[registry.mirror]]
location = "mirror-0.local/foo"

[[registry.mirror]]
location = "mirror-1.local:5000/foo"
insecure = true
pull-from-mirror = "digest-only"

[[registry]]
location = "quay.io"
mirror-by-digest-only = true
blocked = false
`,
      '/conf/registries.conf',
    );
    expect(conf.registries.map((r) => r.prefix)).toEqual(['example.com/foo', 'quay.io']);
    expect(conf.registries[0]).toEqual({
      prefix: 'example.com/foo',
      location: 'internal.example.net/bar',
      insecure: true,
      blocked: false,
      mirrorByDigestOnly: false,
      mirrors: [
        { location: 'mirror-0.local/foo', insecure: false, pullFromMirror: 'all' },
        { location: 'mirror-1.local:5000/foo', insecure: true, pullFromMirror: 'digest-only' },
      ],
      file: '/conf/registries.conf',
    });
    expect(conf.registries[1]).toMatchObject({
      prefix: 'quay.io',
      location: 'quay.io',
      mirrorByDigestOnly: true,
    });
    expect(conf.unqualifiedSearchRegistries).toEqual(['quay.io']);
    expect(conf.shortNameMode).toBe('permissive');
    expect(conf.warnings).toEqual([]);
  });

  it('names the file and line of a TOML syntax error', () => {
    const err = parseError('[[registry]]\nprefix = "a.io"\nlocation = b.io\n');
    expect(err.code).toBe('E_REGISTRIES_CONF');
    expect(err.message).toMatch(/^\/conf\/registries\.conf:3: invalid TOML: /);
    expect(err.message).not.toContain('\n');
  });

  it.each([
    ['[[registry]]\nprefix = "a.io"\n', /"location" is unset and prefix "a.io" is not a wildcard/],
    ['[[registry]]\ninsecure = true\n', /neither "prefix" nor "location" is set/],
    ['[[registry]]\nlocation = "https://a.io"\n', /has a URL scheme/],
    ['[[registry]]\nlocation = "a.io"\ninsecure = "yes"\n', /"insecure" must be true or false/],
    ['[[registry]]\nprefix = "*.a.io/ns"\n', /wildcard prefix "\*\.a\.io\/ns" must have the form/],
    [
      '[[registry]]\nlocation = "a.io"\npull-from-mirror = "all"\n',
      /belongs in a \[\[registry\.mirror\]\] table/,
    ],
    [
      '[[registry]]\nlocation = "a.io"\n[[registry.mirror]]\nlocation = "m.io"\npull-from-mirror = "sometimes"\n',
      /"pull-from-mirror" is "sometimes"/,
    ],
    [
      '[[registry]]\nlocation = "a.io"\nmirror-by-digest-only = true\n[[registry.mirror]]\nlocation = "m.io"\npull-from-mirror = "tag-only"\n',
      /cannot be combined with the registry's "mirror-by-digest-only"/,
    ],
    [
      '[[registry]]\nlocation = "a.io"\n[[registry.mirror]]\ninsecure = true\n',
      /mirror #1: "location" is unset/,
    ],
    [
      '[[registry]]\nprefix = "x.io"\nlocation = "a.io"\n[[registry]]\nprefix = "y.io"\nlocation = "a.io"\ninsecure = true\n',
      /registry "a.io" is defined more than once with different "insecure" settings/,
    ],
    ['unqualified-search-registries = ["quay.io/ns"]\n', /entry "quay.io\/ns" is not a host\[:port\]/],
    ['short-name-mode = "lenient"\n', /"short-name-mode" is "lenient"/],
    ['[aliases]\n"quay.io/x" = "quay.io/x"\n', /must be a short name/],
    ['[aliases]\n"x:1" = "quay.io/x"\n', /may not have a tag or digest/],
    ['[aliases]\n"x" = "x/y"\n', /must be a fully qualified repository/],
    ['[aliases]\n"x" = "quay.io/x:1"\n', /"quay.io\/x:1" may not have a tag or digest/],
  ])('rejects %j', (text, message) => {
    const err = parseError(text);
    expect(err.code).toBe('E_REGISTRIES_CONF');
    expect(err.message).toMatch(/^\/conf\/registries\.conf(:\d+)?: /);
    expect(err.message).toMatch(message);
  });

  it('points at the table of a semantic error when it can find it', () => {
    const err = parseError('\n[[registry]]\nprefix = "a.io"\n');
    expect(err.message).toMatch(/^\/conf\/registries\.conf:3: /);
  });

  it('keeps the first table of a prefix and warns about unknown keys', () => {
    const conf = parseRegistriesConf(
      '[[registry]]\nlocation = "a.io"\nmirrors = []\n[[registry]]\nlocation = "a.io"\nblocked = false\n',
      'f.conf',
    );
    expect(conf.registries).toHaveLength(1);
    expect(conf.warnings).toEqual([
      'f.conf: [[registry]] #1: unknown key "mirrors" ignored',
      'f.conf: a second [[registry]] with prefix "a.io" is ignored',
    ]);
  });

  it('converts the version 1 format in the main file, and refuses it in drop-ins and mixed in', () => {
    const v1 = `[registries.search]\nregistries = ['docker.io', 'quay.io']\n[registries.insecure]\nregistries = ['local.io:5000']\n[registries.block]\nregistries = ['evil.io']\n`;
    const conf = parseRegistriesConf(v1, 'main.conf');
    expect(conf.unqualifiedSearchRegistries).toEqual(['docker.io', 'quay.io']);
    expect(conf.registries.map((r) => [r.prefix, r.insecure, r.blocked])).toEqual([
      ['evil.io', false, true],
      ['local.io:5000', true, false],
    ]);
    expect(parseError(v1, { dropIn: true }).message).toMatch(/drop-in files must use the version 2 format/);
    expect(parseError(`${v1}[[registry]]\nlocation = "a.io"\n`).message).toMatch(
      /mixes the version 1 format/,
    );
  });

  it('merges drop-ins: same prefix replaced whole, aliases one by one, empty alias erased', () => {
    const main = parseRegistriesConf(
      '[[registry]]\nlocation = "a.io"\ninsecure = true\n[[registry]]\nlocation = "b.io"\n[aliases]\n"x" = "a.io/x"\n"y" = "a.io/y"\n',
      'main.conf',
    );
    const dropIn = parseRegistriesConf(
      'unqualified-search-registries = []\n[[registry]]\nlocation = "a.io"\n[[registry.mirror]]\nlocation = "m.io"\n[aliases]\n"x" = ""\n"z" = "b.io/z"\n',
      'd/1.conf',
      { dropIn: true },
    );
    const conf = mergeConf(mergeConf(emptyConf(), main), dropIn);
    expect(conf.registries.map((r) => [r.prefix, r.insecure, r.mirrors.length, r.file])).toEqual([
      ['a.io', false, 1, 'd/1.conf'],
      ['b.io', false, 0, 'main.conf'],
    ]);
    expect([...conf.aliases.entries()].map(([k, v]) => [k, v.value, v.file])).toEqual([
      ['y', 'a.io/y', 'main.conf'],
      ['z', 'b.io/z', 'd/1.conf'],
    ]);
    expect(conf.unqualifiedSearchRegistries).toEqual([]);
    expect(conf.files).toEqual(['main.conf', 'd/1.conf']);
  });

  it('reads an empty file as no configuration', () => {
    const conf = parseRegistriesConf('', '/dev/null');
    expect(conf.registries).toEqual([]);
    expect(conf.aliases.size).toBe(0);
  });
});
