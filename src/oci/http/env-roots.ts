/**
 * The root certificates SSL_CERT_FILE and SSL_CERT_DIR give, found as Go's crypto/x509 finds the
 * system's on Linux (which the reference opm trusts): SSL_CERT_FILE replaces the bundle file it
 * would look for, SSL_CERT_DIR (folders separated by `:`) the folders it would read every file of.
 * With neither set, Node's own store is left as it is.
 */
import { lstatSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { errnoText } from '../../go/errno.js';
import { compareUtf8 } from '../../go/utf8.js';

/** Where a system keeps its roots: bundle files (the first readable one is used) and folders. */
export interface SystemRoots {
  files: string[];
  folders: string[];
}

/** The bundle files Go tries on Linux, in order, and the folders it reads. */
const LINUX: SystemRoots = {
  files: [
    '/etc/ssl/certs/ca-certificates.crt',
    '/etc/pki/tls/certs/ca-bundle.crt',
    '/etc/ssl/ca-bundle.pem',
    '/etc/pki/tls/cacert.pem',
    '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
    '/etc/ssl/cert.pem',
  ],
  folders: ['/etc/ssl/certs', '/etc/pki/tls/certs'],
};

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** The PEM certificates of a text, each on its own (other PEM blocks, as keys, are left out). */
export function pemCertificates(text: string): string[] {
  return text.match(PEM_CERTIFICATE) ?? [];
}

/**
 * A folder's files but its links to another name in the same folder (`<hash>.0` beside the
 * certificate it names), read once rather than twice as Go does.
 */
function folderFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort(compareUtf8)
    .filter((name) => {
      const file = path.join(dir, name);
      try {
        return !lstatSync(file).isSymbolicLink() || readlinkSync(file).includes('/');
      } catch {
        return false;
      }
    })
    .map((name) => path.join(dir, name));
}

/**
 * The roots of SSL_CERT_FILE and SSL_CERT_DIR with the system's they leave in place, or undefined
 * when neither is set. A named file or folder that cannot be read is one warning; the system's
 * that are missing are not (Go says nothing of them either).
 */
export function envRoots(
  env: NodeJS.ProcessEnv,
  warn: (line: string) => void,
  system: SystemRoots = LINUX,
): string[] | undefined {
  const fileVar = env.SSL_CERT_FILE ?? '';
  const dirVar = env.SSL_CERT_DIR ?? '';
  if (fileVar === '' && dirVar === '') return undefined;
  const roots = new Set<string>();
  const add = (text: string): number => {
    const found = pemCertificates(text);
    for (const pem of found) roots.add(pem);
    return found.length;
  };
  if (fileVar !== '') {
    let problem: string | undefined;
    try {
      if (add(readFileSync(fileVar, 'utf8')) === 0) problem = 'no PEM certificate in it';
    } catch (err) {
      problem = errnoText(err);
    }
    if (problem !== undefined) warn(`warning: ignoring SSL_CERT_FILE ${fileVar}: ${problem}`);
  } else {
    for (const file of system.files) {
      try {
        add(readFileSync(file, 'utf8'));
        break;
      } catch {
        // The next distribution's place.
      }
    }
  }
  const folders = dirVar !== '' ? dirVar.split(':').filter((d) => d !== '') : system.folders;
  for (const dir of folders) {
    let files: string[];
    try {
      files = folderFiles(dir);
    } catch (err) {
      if (dirVar !== '') warn(`warning: ignoring ${dir} of SSL_CERT_DIR: ${errnoText(err)}`);
      continue;
    }
    for (const file of files) {
      try {
        add(readFileSync(file, 'utf8'));
      } catch {
        // A sub-folder, or a file that vanished: Go passes over them too.
      }
    }
  }
  return [...roots];
}
