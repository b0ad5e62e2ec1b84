import { describe, expect, it } from 'vitest';
import { compareSemver, formatSemver, parseRange, parseSemver, rangeError } from './semver.js';

function v(s: string) {
  return parseSemver(s);
}

function inRange(range: string, version: string): boolean {
  return parseRange(range)(v(version));
}

describe('parseSemver', () => {
  it('parses full versions and formats them back', () => {
    for (const s of [
      '0.0.0',
      '1.2.3',
      '1.2.3-alpha.1',
      '1.2.3+build.5',
      '1.0.0-rc.1+b-1.x',
      '10.20.30-0.a-b',
    ]) {
      expect(formatSemver(v(s))).toBe(s);
    }
    expect(v('1.2.3-alpha.10').pre).toEqual([{ str: 'alpha' }, { num: 10n }]);
  });

  it.each([
    ['', 'Version string empty'],
    ['1', 'No Major.Minor.Patch elements found'],
    ['1.2', 'No Major.Minor.Patch elements found'],
    ['v1.2.3', 'Invalid character(s) found in major number "v1"'],
    ['1.b.3', 'Invalid character(s) found in minor number "b"'],
    ['1.2.0.1', 'Invalid character(s) found in patch number "0.1"'],
    ['01.2.3', 'Major number must not contain leading zeroes "01"'],
    ['1.02.3', 'Minor number must not contain leading zeroes "02"'],
    ['1.2.03', 'Patch number must not contain leading zeroes "03"'],
    ['1.2.3-', 'Prerelease is empty'],
    ['1.2.3-a..b', 'Prerelease is empty'],
    ['1.2.3-01', 'Numeric PreRelease version must not contain leading zeroes "01"'],
    ['1.2.3-a_b', 'Invalid character(s) found in prerelease "a_b"'],
    ['1.2.3+', 'Build meta data is empty'],
    ['1.2.3+a..b', 'Build meta data is empty'],
    ['1.2.3+a_b', 'Invalid character(s) found in build meta data "a_b"'],
    ['1..3', 'strconv.ParseUint: parsing "": invalid syntax'],
    ['99999999999999999999.0.0', 'strconv.ParseUint: parsing "99999999999999999999": value out of range'],
    [' 1.2.3', 'Invalid character(s) found in major number " 1"'],
  ])('rejects %j with blang message', (input, message) => {
    expect(() => parseSemver(input)).toThrow(message);
  });

  it('accepts build metadata with leading zeroes and a hyphen after the plus', () => {
    expect(v('1.0.0+001').build).toEqual(['001']);
    expect(v('1.0.0+a-b').pre).toEqual([]);
  });
});

describe('compareSemver', () => {
  const cmp = (a: string, b: string) => compareSemver(v(a), v(b));

  it('orders by precedence', () => {
    const sorted = [
      '1.0.0-0',
      '1.0.0-2',
      '1.0.0-10',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.1.0',
      '2.0.0',
    ];
    for (let i = 0; i + 1 < sorted.length; i++) {
      expect(cmp(sorted[i] ?? '', sorted[i + 1] ?? '')).toBe(-1);
      expect(cmp(sorted[i + 1] ?? '', sorted[i] ?? '')).toBe(1);
    }
  });

  it('ignores build metadata', () => {
    expect(cmp('1.0.0+a', '1.0.0+b')).toBe(0);
    expect(cmp('1.0.0-rc.1+x', '1.0.0-rc.1')).toBe(0);
  });

  it('compares alphanumeric identifiers bytewise (upper case first)', () => {
    expect(cmp('1.0.0-Z', '1.0.0-a')).toBe(-1);
  });
});

describe('parseRange', () => {
  it('handles comparators, AND, OR and optional spaces', () => {
    expect(inRange('>=1.0.0 <2.0.0', '1.5.0')).toBe(true);
    expect(inRange('>=1.0.0 <2.0.0', '2.0.0')).toBe(false);
    expect(inRange('>= 1.0.0 < 2.0.0', '1.9.9')).toBe(true);
    expect(inRange('<1.0.0 || >=3.0.0', '3.1.0')).toBe(true);
    expect(inRange('<1.0.0 || >=3.0.0', '2.0.0')).toBe(false);
    expect(inRange('1.2.3', '1.2.3')).toBe(true);
    expect(inRange('==1.2.3', '1.2.3+build')).toBe(true);
    expect(inRange('!=1.2.3', '1.2.3')).toBe(false);
    expect(inRange('!1.2.3', '1.2.4')).toBe(true);
    expect(inRange('>1.2.3', '1.2.4')).toBe(true);
    expect(inRange('<=1.2.3', '1.2.3')).toBe(true);
  });

  it('expands x wildcards to bounds', () => {
    expect(inRange('1.x', '1.9.0')).toBe(true);
    expect(inRange('1.x', '2.0.0')).toBe(false);
    expect(inRange('1.2.x', '1.2.9')).toBe(true);
    expect(inRange('1.2.x', '1.3.0')).toBe(false);
    expect(inRange('>1.2.x', '1.3.0')).toBe(true);
    expect(inRange('>1.2.x', '1.2.9')).toBe(false);
    expect(inRange('<=1.x', '1.99.0')).toBe(true);
    expect(inRange('<=1.x', '2.0.0')).toBe(false);
    expect(inRange('!=1.x', '1.5.0')).toBe(false);
    // blang expands `!=1.x` to `<1.0.0 >=2.0.0` as an AND, which nothing satisfies.
    expect(inRange('!=1.x', '2.5.0')).toBe(false);
    expect(inRange('!=1.x', '0.5.0')).toBe(false);
    // `1.x.x` counts as a patch wildcard in blang: it means >=1.0.0 <1.1.0.
    expect(inRange('1.x.x', '1.0.4')).toBe(true);
    expect(inRange('1.x.x', '1.4.4')).toBe(false);
  });

  it('does not exclude pre-releases, unlike npm semver', () => {
    // opm: a skipRange `<0.2.0` covers `0.2.0-alpha`; npm needs includePrerelease for that.
    expect(inRange('<0.2.0', '0.2.0-alpha')).toBe(true);

    expect(inRange('>=4.8.0 <4.9.0', '4.8.1-rc.1')).toBe(true);

    // `<1.0.0` includes `1.0.0-rc.1` in both, but only opm lets `0.9.0-beta` in by plain range.
    expect(inRange('>=0.1.0 <1.0.0', '0.9.0-beta')).toBe(true);
  });

  it('differs from npm semver in syntax it accepts', () => {
    // npm semver accepts a v prefix, tilde/caret and hyphen ranges; blang does not.
    expect(rangeError('>=v1.0.0')).toBe(
      'Could not parse Range ">=v1.0.0": Could not parse comparator ">=v" in ">=v1.0.0"',
    );
    expect(rangeError('~1.2.3')).toBe(
      'Could not parse Range "~1.2.3": Could not parse comparator "~" in "~1.2.3"',
    );
    expect(rangeError('^1.2.3')).toBe(
      'Could not parse Range "^1.2.3": Could not parse comparator "^" in "^1.2.3"',
    );
    // npm semver reads a partial version `1.2` as a range; blang needs three parts.
    expect(rangeError('>=1.2')).toBe(
      'Could not parse Range ">=1.2": Could not parse version "1.2" in ">=1.2": No Major.Minor.Patch elements found',
    );
    // npm semver parses `1.2.3 - 2.0.0` as a hyphen range; blang sees `-` as a comparator-less token.
    expect(rangeError('1.2.3 - 2.0.0')).toBeUndefined();
    expect(() => parseSemver('v1.2.3')).toThrow('Invalid character(s) found in major number "v1"');
  });

  it.each([
    ['>v0.1.0', 'Could not parse Range ">v0.1.0": Could not parse comparator ">v" in ">v0.1.0"'],
    ['>=a', 'Could not get version from string: ">=a"'],
    ['|| 1.0.0', "First element in range is '||'"],
    ['1.0.0 ||', "Last element in range is '||'"],
    ['', "Last element in range is '||'"],
    [
      '>=1.0.0 <1.2.03',
      'Could not parse Range "<1.2.03": Could not parse version "1.2.03" in "<1.2.03": Patch number must not contain leading zeroes "03"',
    ],
    // A `>` on a token with an `x` that is not a wildcard loses its version, as in blang.
    ['>1.0.0-xyz', 'Could not get version from string: ">="'],
  ])('rejects %j with blang message', (input, message) => {
    expect(rangeError(input)).toBe(message);
  });

  it('drops single-character tokens like blang tokeniser', () => {
    expect(rangeError('>=1.0.0 x')).toBeUndefined();
    expect(inRange('>=1.0.0 x', '5.0.0')).toBe(true);
  });
});
