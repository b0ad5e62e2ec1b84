import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isRecord } from '../../go/json-value.js';
import { homeDir } from '../../util/home-dir.js';

/** Credentials for one registry. `source` says where they came from and never holds a secret. */
export interface Credential {
  username: string;
  password: string;
  /** An OAuth2 refresh token (docker's `identitytoken`, or a helper answering user `<token>`). */
  identityToken?: string;
  source: string;
}

type Warn = (line: string) => void;

const HELPER_TIMEOUT_MS = 10_000;
const HELPER_OUTPUT_LIMIT = 64 * 1024;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/**
 * Auth files in the order they are searched: opm's own choice first (`REGISTRY_AUTH_FILE`, then the
 * docker config), then the containers-tools locations. The first file with an entry wins.
 */
export function credentialFiles(env: NodeJS.ProcessEnv): string[] {
  const home = homeDir(env);
  const files: string[] = [];
  const add = (p: string | undefined): void => {
    if (p !== undefined && p !== '' && !files.includes(p)) files.push(p);
  };
  add(env.REGISTRY_AUTH_FILE);
  if (env.DOCKER_CONFIG !== undefined && env.DOCKER_CONFIG !== '')
    add(path.join(env.DOCKER_CONFIG, 'config.json'));
  add(path.join(home, '.docker', 'config.json'));
  if (env.XDG_RUNTIME_DIR !== undefined && env.XDG_RUNTIME_DIR !== '')
    add(path.join(env.XDG_RUNTIME_DIR, 'containers', 'auth.json'));
  const xdgConfig =
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== ''
      ? env.XDG_CONFIG_HOME
      : path.join(home, '.config');
  add(path.join(xdgConfig, 'containers', 'auth.json'));
  return files;
}

/** Docker Hub goes by several names in auth files; they all mean the same registry. */
function canonicalHost(host: string): string {
  const h = host.toLowerCase();
  return h === 'index.docker.io' || h === 'registry-1.docker.io' ? 'docker.io' : h;
}

/**
 * Normalise an `auths` key: with a scheme (`https://index.docker.io/v1/`) only the host counts, as
 * the docker CLI writes such keys; without one, the key may name a namespace (`quay.io/org`).
 */
export function normaliseAuthKey(key: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/]+)/i.exec(key);
  if (m?.[1] !== undefined) return canonicalHost(m[1]);
  const trimmed = key.replace(/\/+$/, '');
  const slash = trimmed.indexOf('/');
  return slash < 0
    ? canonicalHost(trimmed)
    : `${canonicalHost(trimmed.slice(0, slash))}${trimmed.slice(slash)}`;
}

/** Keys to try for a repository, most specific first: `host/a/b`, `host/a`, `host`. */
function candidateKeys(registry: string, repository: string): string[] {
  const host = canonicalHost(registry);
  const parts = repository.split('/');
  const keys: string[] = [];
  for (let n = parts.length; n > 0; n--) keys.push(`${host}/${parts.slice(0, n).join('/')}`);
  keys.push(host);
  return keys;
}

/** The server string given to credential helpers: docker's legacy URL for Hub, else `host[:port]`. */
function helperServer(registry: string): string {
  return canonicalHost(registry) === 'docker.io' ? 'https://index.docker.io/v1/' : registry;
}

function decodeAuthEntry(entry: unknown, where: string, warn: Warn): Credential | undefined {
  if (!isRecord(entry)) {
    warn(`ignoring credentials in ${where}: entry is not an object`);
    return undefined;
  }
  const identityToken = str(entry.identitytoken);
  const auth = str(entry.auth);
  let username = str(entry.username) ?? '';
  let password = str(entry.password) ?? '';
  if (auth !== undefined && auth !== '') {
    const decoded = Buffer.from(auth, 'base64').toString('utf8').replace(/\0+$/, '');
    const colon = decoded.indexOf(':');
    // Base64 that does not round-trip, or no ':' → corrupt entry; say so without echoing it.
    if (
      colon <= 0 ||
      Buffer.from(auth, 'base64').toString('base64').replace(/=+$/, '') !== auth.replace(/=+$/, '')
    ) {
      warn(`ignoring credentials in ${where}: "auth" is not base64 of user:password`);
      return undefined;
    }
    username = decoded.slice(0, colon);
    password = decoded.slice(colon + 1);
  }
  if (identityToken !== undefined && identityToken !== '')
    return { username, password, identityToken, source: where };
  // `{}` is docker's marker for "kept in a helper": nothing to use here.
  if (username === '' && password === '') return undefined;
  return { username, password, source: where };
}

/** Run `docker-credential-<name> get`; undefined when it has nothing for the server. */
async function runCredentialHelper(
  name: string,
  registry: string,
  env: NodeJS.ProcessEnv,
  warn: Warn,
): Promise<Credential | undefined> {
  const program = `docker-credential-${name}`;
  const source = `credential helper ${program}`;
  if (!/^[A-Za-z0-9._-]+$/.test(name)) {
    warn(`ignoring credential helper "${name}": invalid name`);
    return undefined;
  }
  const result = await new Promise<{ code: number | null; out: string; error?: string }>((resolve) => {
    // Loaded here: few runs use a helper, and node:child_process costs start-up time.
    const { spawn } = process.getBuiltinModule('node:child_process');
    const child = spawn(program, ['get'], {
      env,
      stdio: ['pipe', 'pipe', 'ignore'],
      timeout: HELPER_TIMEOUT_MS,
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (out.length < HELPER_OUTPUT_LIMIT) out += chunk;
    });
    child.on('error', (err) => resolve({ code: null, out, error: err.message }));
    child.on('close', (code) => resolve({ code, out }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(helperServer(registry));
  });
  if (result.error !== undefined) {
    warn(
      `${source} for ${registry} could not run: ${result.error.includes('ENOENT') ? 'not found in PATH' : 'failed to start'}`,
    );
    return undefined;
  }
  if (result.code !== 0) {
    // The helper protocol reports "no credentials" this way; it is not an error.
    if (!/credentials not found/i.test(result.out))
      warn(`${source} for ${registry} failed (exit ${String(result.code)})`);
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(result.out);
  } catch {
    warn(`${source} for ${registry} returned malformed output`);
    return undefined;
  }
  if (!isRecord(parsed)) {
    warn(`${source} for ${registry} returned malformed output`);
    return undefined;
  }
  const username = str(parsed.Username) ?? '';
  const secret = str(parsed.Secret) ?? '';
  if (secret === '') return undefined;
  if (username === '<token>') return { username: '', password: '', identityToken: secret, source };
  return { username, password: secret, source };
}

async function lookInFile(
  file: string,
  registry: string,
  repository: string,
  env: NodeJS.ProcessEnv,
  warn: Warn,
): Promise<Credential | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    warn(`ignoring auth file ${file}: not valid JSON`);
    return undefined;
  }
  if (!isRecord(doc)) {
    warn(`ignoring auth file ${file}: not a JSON object`);
    return undefined;
  }
  const host = canonicalHost(registry);
  if (isRecord(doc.credHelpers)) {
    for (const [key, helper] of Object.entries(doc.credHelpers)) {
      if (normaliseAuthKey(key) !== host) continue;
      if (typeof helper !== 'string') {
        warn(`ignoring credHelpers["${key}"] in ${file}: not a string`);
        continue;
      }
      const c = await runCredentialHelper(helper, registry, env, warn);
      if (c !== undefined) return c;
    }
  }
  if (isRecord(doc.auths)) {
    const byKey = new Map<string, [string, unknown]>();
    for (const [key, entry] of Object.entries(doc.auths)) {
      const k = normaliseAuthKey(key);
      if (!byKey.has(k)) byKey.set(k, [key, entry]);
    }
    for (const k of candidateKeys(registry, repository)) {
      const hit = byKey.get(k);
      if (hit === undefined) continue;
      const c = decodeAuthEntry(hit[1], `${file} (auths["${hit[0]}"])`, warn);
      if (c !== undefined) return c;
    }
  }
  if (typeof doc.credsStore === 'string' && doc.credsStore !== '') {
    return runCredentialHelper(doc.credsStore, registry, env, warn);
  }
  return undefined;
}

/**
 * Find credentials for `registry/repository`. A broken file, entry or helper is reported through
 * `warn` and skipped, so one bad entry cannot hide the good ones.
 */
export async function findCredentials(
  registry: string,
  repository: string,
  env: NodeJS.ProcessEnv,
  warn: Warn = () => undefined,
): Promise<Credential | undefined> {
  for (const file of credentialFiles(env)) {
    const c = await lookInFile(file, registry, repository, env, warn);
    if (c !== undefined) return c;
  }
  return undefined;
}
