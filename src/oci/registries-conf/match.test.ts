import { describe, expect, it } from 'vitest';
import { OpmError } from '../../errors.js';
import { emptyConf, mergeConf } from './config.js';
import { findRegistry, matchPrefix, pullSources, resolveAlias } from './match.js';
import { parseRegistriesConf } from './parse.js';
import { planPull } from './plan.js';

const conf = (text: string): ReturnType<typeof emptyConf> =>
  mergeConf(emptyConf(), parseRegistriesConf(text, '/etc/containers/registries.conf'));

describe('matchPrefix', () => {
  it.each([
    ['example.com/foo/bar:1', 'example.com/foo', 15],
    ['example.com/foo:1', 'example.com/foo', 15],
    ['example.com/foo@sha256:ab', 'example.com/foo', 15],
    ['example.com/foo', 'example.com/foo', 15],
    ['example.com/foobar:1', 'example.com/foo', -1],
    ['example.com/foo:1', 'example.com', 11],
    ['example.com:5000/foo:1', 'example.com', -1],
    ['example.com:5000/foo:1', 'example.com:5000', 16],
    ['a.example.com/foo:1', '*.example.com', 13],
    ['a.b.example.com:5000/foo:1', '*.example.com', 15],
    ['example.com/foo:1', '*.example.com', -1],
    ['a.example.com.evil.io/foo:1', '*.example.com', -1],
    ['evil.io/a.example.com/x:1', '*.example.com', -1],
  ])('%s against %s', (ref, prefix, expected) => {
    expect(matchPrefix(ref, prefix)).toBe(expected);
  });
});

describe('findRegistry and pullSources', () => {
  const c = conf(`
[[registry]]
prefix = "example.com"
location = "example.com"
[[registry.mirror]]
location = "all.local"

[[registry]]
prefix = "example.com/foo"
location = "internal.example.net/bar"
[[registry.mirror]]
location = "m-digest.local/foo"
pull-from-mirror = "digest-only"
[[registry.mirror]]
location = "m-tag.local/foo"
pull-from-mirror = "tag-only"
insecure = true
[[registry.mirror]]
location = "m-all.local/foo"

[[registry]]
prefix = "*.wild.io"
[[registry.mirror]]
location = "wild-mirror.local/w"

[[registry]]
location = "legacy.io"
mirror-by-digest-only = true
[[registry.mirror]]
location = "legacy-mirror.local"
`);

  it('picks the longest matching prefix', () => {
    expect(findRegistry(c, 'example.com/foo/img:1')?.prefix).toBe('example.com/foo');
    expect(findRegistry(c, 'example.com/other:1')?.prefix).toBe('example.com');
    expect(findRegistry(c, 'elsewhere.io/x:1')).toBeUndefined();
  });

  it('tries the mirrors for tags, then the rewritten location', () => {
    const entry = findRegistry(c, 'example.com/foo/img:1');
    expect(pullSources(entry, 'example.com/foo/img:1', false)).toEqual([
      { reference: 'm-tag.local/foo/img:1', insecure: true, mirror: true },
      { reference: 'm-all.local/foo/img:1', insecure: false, mirror: true },
      { reference: 'internal.example.net/bar/img:1', insecure: false, mirror: false },
    ]);
  });

  it('tries digest-only mirrors for digests, never tag-only ones', () => {
    const d = `example.com/foo/img@sha256:${'a'.repeat(64)}`;
    expect(pullSources(findRegistry(c, d), d, true).map((s) => s.reference)).toEqual([
      `m-digest.local/foo/img@sha256:${'a'.repeat(64)}`,
      `m-all.local/foo/img@sha256:${'a'.repeat(64)}`,
      `internal.example.net/bar/img@sha256:${'a'.repeat(64)}`,
    ]);
  });

  it('keeps a wildcard-matched reference as it is and rewrites it for mirrors', () => {
    const entry = findRegistry(c, 'a.wild.io/ns/x:1');
    expect(pullSources(entry, 'a.wild.io/ns/x:1', false).map((s) => s.reference)).toEqual([
      'wild-mirror.local/w/ns/x:1',
      'a.wild.io/ns/x:1',
    ]);
  });

  it('honours the legacy mirror-by-digest-only', () => {
    const entry = findRegistry(c, 'legacy.io/x:1');
    expect(pullSources(entry, 'legacy.io/x:1', false).map((s) => s.reference)).toEqual(['legacy.io/x:1']);
    const d = `legacy.io/x@sha256:${'b'.repeat(64)}`;
    expect(pullSources(entry, d, true).map((s) => s.reference)).toEqual([
      `legacy-mirror.local/x@sha256:${'b'.repeat(64)}`,
      d,
    ]);
  });
});

describe('resolveAlias', () => {
  const c = conf('[aliases]\n"bundle" = "quay.io/ns/bundle"\n"ns/x" = "example.com/y"\n');
  it.each([
    ['bundle', 'quay.io/ns/bundle'],
    ['bundle:v1', 'quay.io/ns/bundle:v1'],
    [`bundle@sha256:${'c'.repeat(64)}`, `quay.io/ns/bundle@sha256:${'c'.repeat(64)}`],
    ['ns/x:2', 'example.com/y:2'],
  ])('%s → %s', (text, expected) => {
    expect(resolveAlias(c, text)?.reference).toBe(expected);
  });
  it('leaves qualified names and names without an alias alone', () => {
    expect(resolveAlias(c, 'quay.io/bundle')).toBeUndefined();
    expect(resolveAlias(c, 'other')).toBeUndefined();
  });
});

describe('planPull', () => {
  it('is the reference itself without configuration', () => {
    const [only, ...rest] = planPull(emptyConf(), 'quay.io/ns/x:1');
    expect(rest).toEqual([]);
    expect(only?.ref.original).toBe('quay.io/ns/x:1');
    expect(only?.mirror).toBe(false);
  });

  it('refuses a blocked registry, naming the file', () => {
    const c = conf('[[registry]]\nlocation = "evil.io"\nblocked = true\n');
    let err: unknown;
    try {
      planPull(c, 'evil.io/ns/x:1');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OpmError);
    expect((err as OpmError).code).toBe('E_REGISTRY_BLOCKED');
    expect((err as OpmError).message).toBe(
      'registry "evil.io" is blocked by /etc/containers/registries.conf',
    );
  });

  it('resolves an alias before matching registries', () => {
    const c = conf(
      '[aliases]\n"x" = "src.io/ns/x"\n[[registry]]\nlocation = "src.io"\n[[registry.mirror]]\nlocation = "mirror.io"\n',
    );
    expect(planPull(c, 'x:1').map((s) => [s.ref.registry, s.ref.repository, s.ref.tag, s.mirror])).toEqual([
      ['mirror.io', 'ns/x', '1', true],
      ['src.io', 'ns/x', '1', false],
    ]);
  });

  it('matches docker.io references in their canonical form', () => {
    const c = conf('[[registry]]\nprefix = "docker.io/library"\nlocation = "hub-mirror.io/lib"\n');
    expect(
      planPull(c, 'busybox').map((s) => `${s.ref.registry}/${s.ref.repository}:${s.ref.tag ?? ''}`),
    ).toEqual(['hub-mirror.io/lib/busybox:latest']);
  });
});
