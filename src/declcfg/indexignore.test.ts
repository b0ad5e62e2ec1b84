import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { corpusPath, haveCorpus } from '../../test/corpus.js';
import { componentPattern, IndexIgnore } from './indexignore.js';

/** files: [dir, text] of each .indexignore in discovery order; cases: [path, ignored]. */
function check(files: [string, string][], cases: [string, boolean][]): void {
  const m = new IndexIgnore();
  for (const [dir, text] of files) m.add(dir, text);
  const got = cases.map(([p]) => [p, m.ignores(p)]);
  expect(got).toStrictEqual(cases);
}

describe('component patterns (filepath.Match)', () => {
  it.each([
    ['*', 'abc', true],
    ['*', '', true],
    ['*.yaml', 'a.yaml', true],
    ['*.yaml', 'a.yml', false],
    ['a?c', 'abc', true],
    ['a?c', 'ac', false],
    ['a?c', 'aéc', true],
    ['[abc]', 'b', true],
    ['[abc]', 'd', false],
    ['[a-c]x', 'bx', true],
    ['[^a-c]x', 'bx', false],
    ['[^a-c]x', 'dx', true],
    ['[\\]]', ']', true],
    ['[z-a]', 'b', false],
    ['\\*', '*', true],
    ['\\*', 'a', false],
    ['a\\?', 'a?', true],
    ['.*', '.hidden', true],
    ['(a)+', '(a)+', true],
    ['(a)+', 'aa', false],
  ])('%s vs %s', (glob, name, want) => {
    expect(componentPattern(glob)?.test(name)).toBe(want);
  });

  it.each([['[]'], ['[a'], ['[-a]'], ['a\\'], ['[a-]'], ['[^]']])('%s is malformed', (glob) => {
    expect(componentPattern(glob)).toBeUndefined();
  });
});

describe('IndexIgnore', () => {
  it('skips blank lines and comments, trims lines, handles CRLF', () => {
    check(
      [['', '\n# a.yaml\n  b.yaml  \r\n\\#c.yaml\n']],
      [
        ['a.yaml', false],
        ['b.yaml', true],
        ['#c.yaml', true],
        ['# a.yaml', false],
      ],
    );
  });

  it('unanchored names match any component at any depth', () => {
    check(
      [['', 'README.md\nsecret\n']],
      [
        ['README.md', true],
        ['docs/README.md', true],
        ['secret/a.yaml', true],
        ['x/secret/y/a.yaml', true],
        ['README.md.bak', false],
        ['catalog.yaml', false],
      ],
    );
  });

  it('directory-only patterns need a non-final component', () => {
    check(
      [['', 'build/\n']],
      [
        ['build', false],
        ['a/build', false],
        ['build/a.yaml', true],
        ['a/build/b/c.yaml', true],
      ],
    );
  });

  it('patterns with a slash are anchored to the domain and cover what lies beneath', () => {
    check(
      [['', '/ignore\ndocs/*.md\na/b/\n']],
      [
        ['ignore', true],
        ['ignore/a.yaml', true],
        ['x/ignore', false],
        ['docs/x.md', true],
        ['docs/sub/x.md', false],
        ['sub/docs/x.md', false],
        ['a/b', false],
        ['a/b/c.yaml', true],
      ],
    );
  });

  it('** matches zero or more directories; a trailing ** matches everything below', () => {
    check(
      [['', '**/tmp\nlogs/**\na/**/z.yaml\n']],
      [
        ['tmp', true],
        ['x/y/tmp', true],
        ['x/tmp/f.yaml', true],
        ['logs/a.yaml', true],
        ['logs/a/b.yaml', true],
        // opm's matcher also takes the name before a trailing ** itself (git would not).
        ['logs', true],
        ['a/z.yaml', true],
        ['a/b/c/z.yaml', true],
        ['b/a/z.yaml', false],
      ],
    );
  });

  it('** takes the first matching directory without backtracking, as opm does', () => {
    check(
      [['', '**/a/b\n']],
      [
        ['a/b', true],
        ['x/a/b/c', true],
        ['a/x/a/b', false],
      ],
    );
  });

  it('a ** glued to a name inside an anchored pattern never matches', () => {
    check([['', 'a/b**\n']], [['a/bc', false]]);
  });

  it('a lone ** matches everything, /** nothing', () => {
    check([['', '**\n']], [['a/b.yaml', true]]);
    check([['', '/**\n']], [['a/b.yaml', false]]);
  });

  it('the last matching pattern wins, so negations re-include', () => {
    check(
      [['', '*\n!*.json\n!*.yaml\n*.clusterserviceversion.yaml\n']],
      [
        ['index.json', false],
        ['a/catalog.yaml', false],
        ['README.md', true],
        ['a/foo.clusterserviceversion.yaml', true],
      ],
    );
  });

  it('negation re-includes a file under an ignored directory (unlike git)', () => {
    check(
      [['', 'skip/\n!keep.yaml\n']],
      [
        ['skip/keep.yaml', false],
        ['skip/other.yaml', true],
      ],
    );
  });

  it('nested files only apply beneath their directory and override earlier files', () => {
    check(
      [
        ['', '*.md\nsecret.yaml\n'],
        ['pkg', '!NOTES.md\n/local.yaml\n'],
        ['pkg/deep', '!secret.yaml\n'],
      ],
      [
        ['README.md', true],
        ['pkg/NOTES.md', false],
        ['pkg/README.md', true],
        ['other/NOTES.md', true],
        ['pkg/local.yaml', true],
        ['local.yaml', false],
        ['pkg/x/local.yaml', false],
        ['secret.yaml', true],
        ['pkg/secret.yaml', true],
        ['pkg/deep/secret.yaml', false],
        ['pkg/deep/x/secret.yaml', false],
        ['pkg', false],
      ],
    );
  });

  it('a pattern never matches its own directory', () => {
    check(
      [['pkg', '*\n']],
      [
        ['pkg', false],
        ['pkg/a.yaml', true],
        ['pkgx/a.yaml', false],
      ],
    );
  });

  it('malformed patterns match nothing', () => {
    check(
      [['', '[\na[]b\n']],
      [
        ['[', false],
        ['a[]b', false],
      ],
    );
  });

  it.runIf(haveCorpus())("cool-catalog's files", () => {
    const m = new IndexIgnore();
    m.add('', readFileSync(corpusPath('cool-catalog/.indexignore'), 'utf8'));
    m.add('catalog', readFileSync(corpusPath('cool-catalog/catalog/.indexignore'), 'utf8'));
    expect(m.ignores('catalog/README.md')).toBe(true);
    expect(m.ignores('LICENSE')).toBe(true);
    expect(m.ignores('catalog/op.Dockerfile')).toBe(true);
    expect(m.ignores('catalog/op/catalog.yaml')).toBe(false);
  });
});
