/**
 * The roots SSL_CERT_FILE and SSL_CERT_DIR stand for, as Go's crypto/x509 reads them on Linux: each
 * replaces only its own half of the system's (the bundle file, the folders), so one set alone
 * keeps the other half; PEM certificates only, whatever else a file holds.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { envRoots, pemCertificates } from './env-roots.js';

/** A stand-in for a certificate: envRoots passes PEM blocks on without parsing them. */
const cert = (n: string): string => `-----BEGIN CERTIFICATE-----\n${n}\n-----END CERTIFICATE-----`;

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-env-roots-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe('envRoots', () => {
  it('leaves Node.js its store when neither variable is set', () => {
    expect(envRoots({ SSL_CERT_FILE: '', HOME: tmp }, () => undefined)).toBeUndefined();
  });

  it('reads both, the file first, the folders in order, every file but same-folder links', () => {
    const file = path.join(tmp, 'bundle.pem');
    writeFileSync(
      file,
      `${cert('A')}\n-----BEGIN PRIVATE KEY-----\nK\n-----END PRIVATE KEY-----\n${cert('B')}\n`,
    );
    const one = path.join(tmp, 'one');
    const two = path.join(tmp, 'two');
    mkdirSync(path.join(one, 'sub'), { recursive: true });
    mkdirSync(two);
    writeFileSync(path.join(one, 'z.crt'), cert('C'));
    writeFileSync(path.join(one, 'anything'), `garbage\n${cert('D')}`);
    symlinkSync('z.crt', path.join(one, '1234abcd.0'));
    writeFileSync(path.join(two, 'e.pem'), cert('E'));
    symlinkSync(path.join(tmp, 'bundle.pem'), path.join(two, 'elsewhere.pem'));
    const warnings: string[] = [];
    const roots = envRoots({ SSL_CERT_FILE: file, SSL_CERT_DIR: `${one}:${two}` }, (l) => warnings.push(l));
    expect(roots).toEqual([cert('A'), cert('B'), cert('D'), cert('C'), cert('E')]);
    expect(warnings).toEqual([]);
  });

  it('keeps the system folders with SSL_CERT_FILE alone, and the system bundle with SSL_CERT_DIR alone', () => {
    const file = path.join(tmp, 'mine.pem');
    writeFileSync(file, cert('MINE'));
    const mine = path.join(tmp, 'mine');
    mkdirSync(mine);
    writeFileSync(path.join(mine, 'm.crt'), cert('MINE-DIR'));
    // A system whose first bundle file is missing (the next one is used) and with one folder.
    const sys = path.join(tmp, 'system');
    mkdirSync(path.join(sys, 'certs'), { recursive: true });
    writeFileSync(path.join(sys, 'bundle.crt'), cert('SYS-FILE'));
    writeFileSync(path.join(sys, 'certs', 's.pem'), cert('SYS-DIR'));
    const system = {
      files: [path.join(sys, 'missing.crt'), path.join(sys, 'bundle.crt')],
      folders: [path.join(sys, 'certs')],
    };
    const roots = (env: NodeJS.ProcessEnv): string[] | undefined => envRoots(env, () => undefined, system);
    expect(roots({ SSL_CERT_FILE: file })).toEqual([cert('MINE'), cert('SYS-DIR')]);
    expect(roots({ SSL_CERT_DIR: mine })).toEqual([cert('SYS-FILE'), cert('MINE-DIR')]);
    expect(roots({ SSL_CERT_FILE: file, SSL_CERT_DIR: mine })).toEqual([cert('MINE'), cert('MINE-DIR')]);
  });

  it('warns once of each named file or folder that cannot be read', () => {
    const warnings: string[] = [];
    const notPem = path.join(tmp, 'not.pem');
    writeFileSync(notPem, 'nothing here');
    const roots = envRoots(
      { SSL_CERT_FILE: notPem, SSL_CERT_DIR: `${path.join(tmp, 'gone')}::${notPem}` },
      (l) => warnings.push(l),
      { files: [], folders: [] },
    );
    expect(roots).toEqual([]);
    expect(warnings).toEqual([
      `warning: ignoring SSL_CERT_FILE ${notPem}: no PEM certificate in it`,
      `warning: ignoring ${path.join(tmp, 'gone')} of SSL_CERT_DIR: no such file or directory`,
      `warning: ignoring ${notPem} of SSL_CERT_DIR: not a directory`,
    ]);
  });

  it('picks the PEM certificates out of a text', () => {
    expect(pemCertificates(`x\n${cert('1')}\ny\n${cert('2')}`)).toEqual([cert('1'), cert('2')]);
    expect(pemCertificates('no certificate')).toEqual([]);
  });
});
