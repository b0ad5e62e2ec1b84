import { describe, expect, it } from 'vitest';
import { parseChallenges } from './challenge.js';

describe('parseChallenges', () => {
  it('reads a distribution bearer challenge with a comma inside the quoted scope', () => {
    expect(
      parseChallenges(
        'Bearer realm="https://auth.example/token",service="registry.example",scope="repository:ns/repo:pull,push",error="insufficient_scope"',
      ),
    ).toEqual([
      {
        scheme: 'bearer',
        params: {
          realm: 'https://auth.example/token',
          service: 'registry.example',
          scope: 'repository:ns/repo:pull,push',
          error: 'insufficient_scope',
        },
      },
    ]);
  });

  it('reads several challenges in one header and across headers, schemes case-insensitive', () => {
    expect(
      parseChallenges(['BASIC realm="basic-realm", Bearer realm="r", service=svc', 'Negotiate']),
    ).toEqual([
      { scheme: 'basic', params: { realm: 'basic-realm' } },
      { scheme: 'bearer', params: { realm: 'r', service: 'svc' } },
      { scheme: 'negotiate', params: {} },
    ]);
  });

  it('unescapes quoted strings and tolerates spaces around "="', () => {
    expect(parseChallenges('Bearer realm = "a\\"b", scope="x y"')).toEqual([
      { scheme: 'bearer', params: { realm: 'a"b', scope: 'x y' } },
    ]);
  });

  it('returns nothing for a missing or empty header', () => {
    expect(parseChallenges(undefined)).toEqual([]);
    expect(parseChallenges('')).toEqual([]);
    expect(parseChallenges(' , ')).toEqual([]);
  });
});
