import { describe, expect, it } from 'vitest';
import { InternalError, OpmError, wrapError } from './errors.js';

describe('wrapError', () => {
  it('returns an OpmError with the context before the message, keeping position and hint', () => {
    const inner = new OpmError('bad value', { at: { file: 'c.yaml', line: 3 }, hint: 'fix it' });
    const wrapped = wrapError('render reference "x"', inner);
    expect(wrapped).toBeInstanceOf(OpmError);
    expect(wrapped.message).toBe('render reference "x": bad value');
    expect(wrapped).toMatchObject({ at: { file: 'c.yaml', line: 3 }, hint: 'fix it', cause: inner });
    const plain = wrapError('reading', new Error('EACCES'));
    expect(plain).toBeInstanceOf(OpmError);
    expect(plain.message).toBe('reading: EACCES');
    expect(wrapError('reading', 'text').message).toBe('reading: text');
  });

  it('returns an InternalError as it is, for the caller to throw like any other', () => {
    const bug = new InternalError('unreachable');
    expect(wrapError('render reference "x"', bug)).toBe(bug);
  });
});
