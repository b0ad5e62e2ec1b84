import { describe, expect, it } from 'vitest';
import { OpmError } from '../errors.js';
import { mergeSelections, packagesFromFlags, parseFilterConfig } from './filter-config.js';

function failure(f: () => unknown): OpmError {
  try {
    f();
  } catch (err) {
    if (err instanceof OpmError) return err;
    throw err;
  }
  throw new Error('no error');
}

describe('parseFilterConfig', () => {
  it('reads a bare list, a packages document and JSON alike', () => {
    const list = parseFilterConfig(
      '- name: foo\n  channels:\n  - name: stable\n    minVersion: 1.10.0\n',
      'f.yaml',
    );
    const doc = parseFilterConfig(
      'packages:\n- name: foo\n  channels:\n  - name: stable\n    minVersion: 1.10.0\n',
      'f.yaml',
    );
    const json = parseFilterConfig(
      '{"packages":[{"name":"foo","channels":[{"name":"stable","minVersion":"1.10.0"}]}]}',
      'f.json',
    );
    for (const sel of [list, doc, json]) {
      expect(sel).toHaveLength(1);
      expect(sel[0]?.name).toBe('foo');
      expect(sel[0]?.channels[0]?.minVersion?.text).toBe('1.10.0');
    }
  });

  it('keeps versions as written (1.10 is not the number 1.1) and refuses what is not semver', () => {
    const err = failure(() => parseFilterConfig('- name: foo\n  minVersion: 1.10\n', 'sel.yaml'));
    expect(err.at).toEqual({ file: 'sel.yaml', line: 2 });
    expect(err.message).toContain('minVersion "1.10" of package "foo" is not a semantic version');
  });

  it('picks the entry of an ImageSetConfiguration that names the filtered catalog', () => {
    const isc = [
      'kind: ImageSetConfiguration',
      'mirror:',
      '  operators:',
      '  - catalog: example.com/a:v1',
      '    packages: [{name: a}]',
      '  - catalog: example.com/b:v1',
      '    packages: [{name: b, defaultChannel: fast, channels: [{name: fast}]}]',
    ].join('\n');
    expect(parseFilterConfig(isc, 'isc.yaml', 'example.com/b:v1')[0]?.defaultChannel).toBe('fast');
    const err = failure(() => parseFilterConfig(isc, 'isc.yaml', 'catalog'));
    expect(err.message).toContain('lists 2 catalogs and none is "catalog"');
    expect(err.at?.line).toBe(4);
  });

  it('names unknown keys, empty names, reversed ranges and a defaultChannel that is not listed', () => {
    expect(failure(() => parseFilterConfig('- name: a\n  full: true\n', 'x')).message).toBe(
      'unknown key "full" in a package entry',
    );
    expect(failure(() => parseFilterConfig('- name: ""\n', 'x')).message).toBe('`name` is empty');
    const reversed = failure(() =>
      parseFilterConfig(
        '- name: a\n  channels:\n  - name: s\n    minVersion: 2.0.0\n    maxVersion: 1.0.0\n',
        'x',
      ),
    );
    expect(reversed.message).toBe(
      'minVersion 2.0.0 of channel "s" of package "a" is above its maxVersion 1.0.0',
    );
    expect(reversed.at?.line).toBe(3);
    expect(
      failure(() => parseFilterConfig('- name: a\n  defaultChannel: x\n  channels:\n  - name: s\n', 'x'))
        .message,
    ).toBe('defaultChannel "x" of package "a" is not one of its listed channels');
    expect(failure(() => parseFilterConfig('', 'x')).message).toBe('the file is empty');
    expect(failure(() => parseFilterConfig('- name: a\n  - b\n', 'x')).at?.file).toBe('x');
  });

  it('refuses a package selected both by flag and by file', () => {
    const fromFile = parseFilterConfig('- name: foo\n', 'sel.yaml');
    const err = failure(() => mergeSelections(packagesFromFlags(['foo']), fromFile));
    expect(err.message).toBe('package "foo" is selected twice (--package foo and --config sel.yaml:1)');
  });
});
