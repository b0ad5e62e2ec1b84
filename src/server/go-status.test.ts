/**
 * grpc-go's words for requests no handler sees (src/server/go-status.ts). The texts
 * on the right are grpc-go v1.82's, as the reference opm sends them
 * (test/reference/serve-hostile.test.ts compares the two servers on the wire).
 */
import { describe, expect, it } from 'vitest';
import { goErrorText, goRequestStatus, unknownMethodText } from './go-status.js';

const services = new Set(['api.Registry', 'grpc.health.v1.Health']);

describe('unknownMethodText', () => {
  it('names the unknown service, or the unknown method of a known one', () => {
    expect(unknownMethodText('/nosuch.Service/X', services)).toBe('unknown service nosuch.Service');
    expect(unknownMethodText('/api.Registry/Nope', services)).toBe(
      'unknown method Nope for service api.Registry',
    );
    // The last slash splits: everything before it is the service.
    expect(unknownMethodText('/a/b/c', services)).toBe('unknown service a/b');
    expect(unknownMethodText('/api.Registry/', services)).toBe('unknown method  for service api.Registry');
  });

  it('a path without a second slash is malformed, quoted as Go quotes it', () => {
    expect(unknownMethodText('/nope', services)).toBe('malformed method name: "/nope"');
    expect(unknownMethodText('x"y', services)).toBe('malformed method name: "x\\"y"');
  });
});

describe('goRequestStatus', () => {
  const status = (code: number, details: string) => ({ code, details });

  it('a missing request message: EOF (unary) or a cardinality violation (stream)', () => {
    expect(goRequestStatus(undefined, false, 0)).toEqual(status(2, 'EOF'));
    // A length prefix cut short.
    expect(goRequestStatus(undefined, false, 1)).toEqual(status(2, 'EOF'));
    expect(goRequestStatus(undefined, true, 0)).toEqual(
      status(13, 'cardinality violation: received no request message from non-client-streaming RPC'),
    );
    // A message cut short in its body.
    expect(goRequestStatus(undefined, false, 2)).toEqual(status(2, 'unexpected EOF'));
    expect(goRequestStatus(undefined, true, 2)).toEqual(status(13, 'unexpected EOF'));
  });

  it('a second request message on a stream', () => {
    expect(goRequestStatus('second', true, 0)).toEqual(
      status(13, 'cardinality violation: received multiple request messages for non-client-streaming RPC'),
    );
  });

  it('a fault of the reader stays as it is', () => {
    const tooLarge = status(8, 'grpc: received message larger than max (4194309 vs. 4194304)');
    expect(goRequestStatus(tooLarge, false, 2)).toBe(tooLarge);
  });
});

describe('goErrorText', () => {
  it('a plain error (Unknown) is its text; a status error is spelled as Go prints it', () => {
    expect(goErrorText(2, 'package "x" not found')).toBe('package "x" not found');
    expect(goErrorText(1, 'context canceled')).toBe('rpc error: code = Canceled desc = context canceled');
    expect(goErrorText(3, 'schema is required')).toBe(
      'rpc error: code = InvalidArgument desc = schema is required',
    );
  });
});
