import { describe, expect, it } from 'vitest';
import { editDistance, intendedKey, tolerantVersionError } from './metadata.js';

describe('CSV annotation keys', () => {
  it('measures edits, transpositions included, and stops past the cap', () => {
    expect(editDistance('namespace', 'namepsace', 2)).toBe(1);
    expect(editDistance('skiprange', 'skipRange', 2)).toBe(1);
    expect(editDistance('abc', 'abcdef', 2)).toBe(3);
    expect(editDistance('kitten', 'sitting', 5)).toBe(3);
  });

  it.each([
    ['olm.skiprange', 'olm.skipRange'],
    ['OLM.skipRange', 'olm.skipRange'],
    ['operatorframework.io/suggested-namepsace', 'operatorframework.io/suggested-namespace'],
    [
      'operatorframework.io/suggested-namespace-templates',
      'operatorframework.io/suggested-namespace-template',
    ],
    ['olm.substitutesfor', 'olm.substitutesFor'],
    ['alm-example', 'alm-examples'],
  ])('%s is taken for %s', (key, meant) => {
    expect(intendedKey(key)).toBe(meant);
  });

  it.each([
    'olm.skipRange',
    'operatorframework.io/suggested-namespace',
    'operators.operatorframework.io/suggested-namespace',
    'olm.suggested-namespace',
    'quay-version',
    'tectonic-visibility',
    'documentation',
    'com.redhat.openshift.versions',
    'features.operators.openshift.io/token-auth-gcp',
  ])('%s is left alone', (key) => {
    expect(intendedKey(key)).toBeUndefined();
  });
});

describe('olm.maxOpenShiftVersion', () => {
  it.each(['4.18', '4.8', 'v4.8', '4', '4.18.1', ' 4.9 ', '4.10.0-rc.1', '4.08'])('accepts %j', (v) => {
    expect(tolerantVersionError(v)).toBeUndefined();
  });
  it.each([
    ['4.x', '"4.x" is not a version: Invalid character(s) found in minor number "x"'],
    ['', 'the version is empty'],
    ['4.1.2.3', '"4.1.2.3" is not a version: Invalid character(s) found in patch number "2.3"'],
    [
      '2.0+123.github',
      '"2.0+123.github" is not a version: Invalid character(s) found in minor number "0+123"',
    ],
    ['four', '"four" is not a version: Invalid character(s) found in major number "four"'],
  ])('refuses %j', (v, message) => {
    expect(tolerantVersionError(v)).toBe(message);
  });
});
