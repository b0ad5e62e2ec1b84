import { describe, expect, it } from 'vitest';
import { DEFAULT_SEMVER_COMPAT, SEMVER_COMPAT_LEVELS } from '../../template/semver-template.js';
import { DEFAULT_COMPAT_CHOICE, SEMVER_COMPAT_CHOICES } from './alpha-render-template.js';

describe('alpha render-template flags', () => {
  it('offers exactly the semver compatibility levels the template code knows, with its default', () => {
    expect(SEMVER_COMPAT_CHOICES).toEqual(SEMVER_COMPAT_LEVELS);
    expect(DEFAULT_COMPAT_CHOICE).toBe(DEFAULT_SEMVER_COMPAT);
  });
});
