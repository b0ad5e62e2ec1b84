// The declaration reflection hands out is the proto's: registry-file.ts is what
// scripts/generate-registry-file.js makes of registry.proto now (api.test.ts checks the encoded
// descriptors against the proto as protobufjs reads it).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('registry-file.ts', () => {
  it('is what scripts/generate-registry-file.js makes of registry.proto', () => {
    const r = spawnSync(process.execPath, ['scripts/generate-registry-file.js', '--check'], {
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
