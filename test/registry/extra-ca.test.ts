// needs-build: it runs bin/opm.js over dist/, as a program.
// NODE_EXTRA_CA_CERTS through the `opm` program (bin/opm.js run as npm's link runs it): Node.js reads
// the variable as it does for any program, the registry client trusts those certificates whatever
// else a connection trusts, and child processes see the variable as the user set it.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, USER, selfSignedCertificate, startFixture, type Fixture } from './fixture.js';
import { CATALOG_LABELS, buildImage, pushImage } from './image-builder.js';

const bin = path.resolve('bin/opm.js');
const catalog = path.resolve('testdata/examples/catalog');

let fx: Fixture;
let tmp: string;
let ref: string;
/** A CA that signed nothing the fixture serves. */
let otherCa: string;
let runs = 0;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-extra-ca-'));
  fx = await startFixture();
  const img = await buildImage({ layers: [{ dir: catalog, prefix: 'configs' }], labels: CATALOG_LABELS });
  const authorization = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
  await pushImage(img, {
    url: fx.basic.url,
    repo: 'examples/catalog',
    tag: 'v1',
    authorization,
    ca: fx.basicCa,
  });
  // The client-certificate registry serves the plain registry's storage.
  await pushImage(img, { url: fx.plain.url, repo: 'examples/catalog', tag: 'v1' });
  ref = `${fx.basic.host}/examples/catalog:v1`;
  otherCa = path.join(tmp, 'other-ca.crt');
  selfSignedCertificate('/CN=unrelated test CA', path.join(tmp, 'other-ca.key'), otherCa);
  // A credential helper that answers for the registry and notes what it was given.
  const helpers = path.join(tmp, 'helpers');
  mkdirSync(helpers);
  const helper = path.join(helpers, 'docker-credential-opmtest');
  writeFileSync(
    helper,
    [
      '#!/bin/sh',
      'cat >/dev/null',
      'printf \'NODE_EXTRA_CA_CERTS=%s\\nOPM_TS_NODE_EXTRA_CA_CERTS=%s\\n\' "${NODE_EXTRA_CA_CERTS-(unset)}" "${OPM_TS_NODE_EXTRA_CA_CERTS-(unset)}" > "$HELPER_NOTES"',
      `printf '{"Username":"${USER}","Secret":"${PASSWORD}"}'`,
      '',
    ].join('\n'),
  );
  chmodSync(helper, 0o755);
});

afterAll(async () => {
  // Unassigned when beforeAll failed before reaching them.
  await (fx as Fixture | undefined)?.stop();
  if ((tmp as string | undefined) !== undefined) rmSync(tmp, { recursive: true, force: true });
});

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** What the credential helper was given, if it ran. */
  helperSaw: string;
}

/** Copy files (by their names there) into a host's folder of HOME's containers certs.d. */
function putInCertsD(home: string, host: string, files: Record<string, string>): void {
  const dir = path.join(home, '.config', 'containers', 'certs.d', host);
  mkdirSync(dir, { recursive: true });
  for (const [name, from] of Object.entries(files)) writeFileSync(path.join(dir, name), readFileSync(from));
}

/**
 * `opm <args>` run as a program, with its own HOME (docker config naming the helper) and cache;
 * `certsD` is a CA file for the TLS registry's certs.d folder, `client` a client certificate and
 * key for the client-certificate registry's.
 */
function opm(
  args: string[],
  extra: NodeJS.ProcessEnv,
  certsD?: string,
  client?: { cert: string; key: string },
): Run {
  runs++;
  const home = path.join(tmp, `home-${runs}`);
  mkdirSync(path.join(home, '.docker'), { recursive: true });
  writeFileSync(
    path.join(home, '.docker', 'config.json'),
    JSON.stringify({ credHelpers: { [fx.basic.host]: 'opmtest' } }),
  );
  if (certsD !== undefined) putInCertsD(home, fx.basic.host, { 'ca.crt': certsD });
  if (client !== undefined)
    putInCertsD(home, fx.clientCert.host, { 'client.cert': client.cert, 'client.key': client.key });
  const notes = path.join(tmp, `helper-${runs}.txt`);
  const r = spawnSync(bin, args, {
    encoding: 'utf8',
    env: {
      // The helpers, and the Node.js running these tests first: the program runs `node` from PATH.
      PATH: [path.join(tmp, 'helpers'), path.dirname(process.execPath), process.env.PATH].join(':'),
      HOME: home,
      OLM_CACHE_DIR: path.join(tmp, `cache-${runs}`),
      NO_COLOR: '1',
      HELPER_NOTES: notes,
      ...extra,
    },
  });
  let helperSaw = '';
  try {
    helperSaw = readFileSync(notes, 'utf8');
  } catch {
    // The helper did not run.
  }
  // Progress lines appear only when a pull takes over a second (a loaded machine): left out.
  const stderr = r.stderr.replace(/^pull(?:ing|ed) image .*\n/gm, '');
  return { status: r.status, stdout: r.stdout, stderr, helperSaw };
}

describe('NODE_EXTRA_CA_CERTS with the opm program', () => {
  it('trusts a TLS registry whose CA only NODE_EXTRA_CA_CERTS names', () => {
    const fromImage = opm(['render', ref, '-o', 'yaml'], { NODE_EXTRA_CA_CERTS: fx.basicCa });
    expect(fromImage.stderr).toBe('');
    expect(fromImage.status).toBe(0);
    const fromDir = opm(['render', catalog, '-o', 'yaml'], {});
    expect(fromDir.status).toBe(0);
    expect(fromImage.stdout).toBe(fromDir.stdout);
    expect(fromImage.stdout).toContain('schema: olm.package');
  });

  it('hands child processes the variable as the user set it, and nothing of the hand-over', () => {
    const r = opm(['render', ref, '-o', 'json'], { NODE_EXTRA_CA_CERTS: fx.basicCa });
    expect(r.status).toBe(0);
    expect(r.helperSaw).toBe(`NODE_EXTRA_CA_CERTS=${fx.basicCa}\nOPM_TS_NODE_EXTRA_CA_CERTS=(unset)\n`);
    const without = opm(['render', ref, '-o', 'json'], {}, fx.basicCa);
    expect(without.status).toBe(0);
    expect(without.helperSaw).toBe('NODE_EXTRA_CA_CERTS=(unset)\nOPM_TS_NODE_EXTRA_CA_CERTS=(unset)\n');
  });

  it('keeps NODE_EXTRA_CA_CERTS beside a host CA from certs.d', () => {
    const r = opm(['render', ref, '-o', 'json'], { NODE_EXTRA_CA_CERTS: fx.basicCa }, otherCa);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('presents the client certificate of certs.d, trusting the server through NODE_EXTRA_CA_CERTS', () => {
    const clientRef = `${fx.clientCert.host}/examples/catalog:v1`;
    const r = opm(
      ['render', clientRef, '-o', 'json'],
      { NODE_EXTRA_CA_CERTS: fx.basicCa },
      undefined,
      fx.clientCertFiles,
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(opm(['render', catalog, '-o', 'json'], {}).stdout);
    // Without a client certificate the registry refuses the connection: one line.
    const refused = opm(['render', clientRef, '-o', 'json'], { NODE_EXTRA_CA_CERTS: fx.basicCa });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain(
      `${fx.clientCert.host}: the registry refused the connection: it asks for a client certificate`,
    );
    expect(refused.stderr).toContain(`certs.d/${fx.clientCert.host}/client.cert and client.key`);
  });

  it('does not trust the registry without its CA: one line, non-zero exit', () => {
    const r = opm(['render', ref, '-o', 'json'], { NODE_EXTRA_CA_CERTS: otherCa });
    expect(r.status).not.toBe(0);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(fx.basic.host);
    expect(lines[0]).toMatch(/certificate/i);
  });

  it('warns of an unreadable NODE_EXTRA_CA_CERTS once, as Node.js does at start-up, and of one without a certificate when TLS needs it', () => {
    const missing = path.join(tmp, 'no-such-ca.crt');
    const nodeWarning = `Warning: Ignoring extra certs from \`${missing}\`, load failed: error:80000002:system library::No such file or directory\n`;
    const version = opm(['version'], { NODE_EXTRA_CA_CERTS: missing });
    expect(version.status).toBe(0);
    expect(version.stderr).toBe(nodeWarning);
    const r = opm(['render', ref, '-o', 'json'], { NODE_EXTRA_CA_CERTS: missing }, fx.basicCa);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(nodeWarning);
    const notPem = path.join(tmp, 'not-a-certificate.txt');
    writeFileSync(notPem, 'not a certificate\n');
    const garbage = opm(['render', ref, '-o', 'json'], { NODE_EXTRA_CA_CERTS: notPem }, fx.basicCa);
    expect(garbage.status).toBe(0);
    expect(garbage.stderr).toBe(
      `warning: ignoring extra certificates from NODE_EXTRA_CA_CERTS ${notPem}: no PEM certificate in it\n`,
    );
  });
});
