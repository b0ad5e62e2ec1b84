import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusPath } from '../corpus.js';
import { OpmError } from '../../src/errors.js';
import type { RegistryOptions } from '../../src/oci/image-source.js';
import { RegistryClient } from '../../src/oci/registry-client.js';

/** A temp folder removed by the returned function. */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestClient {
  client: RegistryClient;
  cacheDir: string;
  workDir: string;
  home: string;
  logs: string[];
}

/**
 * A client isolated from the machine: its own HOME (no stray credentials), cache and work folders,
 * and no certs.d lookup beyond `certDirs`.
 */
export function testClient(base: string, opts: Partial<RegistryOptions> = {}): TestClient {
  const root = mkdtempSync(path.join(base, 'client-'));
  const home = path.join(root, 'home');
  const cacheDir = path.join(root, 'cache');
  const workDir = path.join(root, 'work');
  const logs: string[] = [];
  const client = new RegistryClient({
    skipTlsVerify: false,
    useHttp: false,
    cacheDir,
    workDir,
    certDirs: [],
    // No /etc/containers/registries.conf of the machine's.
    configRoot: root,
    log: (l) => logs.push(l),
    ...opts,
    env: { HOME: home, PATH: process.env.PATH, ...opts.env },
  });
  return { client, cacheDir, workDir, home, logs };
}

/** Files left in a work folder (an unpack that failed must leave none). */
export function leftovers(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The error a promise rejects with, checked to be an OpmError. */
export async function pullError(p: Promise<unknown>): Promise<OpmError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof OpmError) return err;
    throw new Error(`expected an OpmError, got ${String(err)}`, { cause: err });
  }
  throw new Error('expected the pull to fail');
}

/** How the CLI prints an OpmError: one line, message then hint. */
export function cliLine(err: OpmError): string {
  return `error: ${err.message}${err.hint ? ` (${err.hint})` : ''}`;
}

export const bundleDir = (pkg: string, version: string): string =>
  corpusPath('community-bundles', pkg, version);
export const testdata = (name: string): string => corpusPath('opm-testdata', name);
