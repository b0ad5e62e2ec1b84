/**
 * Whom a TLS connection trusts and what it presents: Node's own store (or, when SSL_CERT_FILE or
 * SSL_CERT_DIR is set, the roots Go would find with them: env-roots.ts), plus the certificates of
 * NODE_EXTRA_CA_CERTS and of the certs.d folders (`<root>/<host[:port]>/*.crt` CAs, `*.cert` +
 * `*.key` client certificates), one TLS context per host.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { SecureContext } from 'node:tls';
import { compareUtf8 } from '../../go/utf8.js';
import { envRoots } from './env-roots.js';

export interface TlsOptions {
  rejectUnauthorized: boolean;
  secureContext?: SecureContext;
}

export class TlsTrust {
  private readonly certDirs: string[];
  private readonly env: NodeJS.ProcessEnv;
  private readonly warn: (line: string) => void;
  /** The certificates named by NODE_EXTRA_CA_CERTS, once read ('' when unset or unreadable). */
  private extraCa: string | undefined;
  /** The roots of SSL_CERT_FILE / SSL_CERT_DIR, once read (null: neither is set). */
  private roots: string[] | null | undefined;
  /** TLS contexts by host (see secureContext). */
  private readonly contexts = new Map<string, SecureContext | undefined>();

  /** CAs trusted for every host (`alpha bundle unpack --root-ca`). */
  private readonly rootCaPem: string;

  constructor(certDirs: string[], env: NodeJS.ProcessEnv, warn: (line: string) => void, rootCaPem = '') {
    this.certDirs = certDirs;
    this.rootCaPem = rootCaPem;
    this.env = env;
    this.warn = warn;
  }

  /** Extra CAs and client certificates for a host, from the certs.d folders. */
  private tlsFiles(host: string): { ca: string[]; cert?: string; key?: string } {
    const ca: string[] = [];
    let cert: string | undefined;
    let key: string | undefined;
    for (const root of this.certDirs) {
      const dir = path.join(root, host);
      let names: string[];
      try {
        names = readdirSync(dir).sort(compareUtf8);
      } catch {
        continue;
      }
      for (const n of names) {
        try {
          if (n.endsWith('.crt')) ca.push(readFileSync(path.join(dir, n), 'utf8'));
          else if (n.endsWith('.cert') && cert === undefined) {
            const k = path.join(dir, `${n.slice(0, -'.cert'.length)}.key`);
            cert = readFileSync(path.join(dir, n), 'utf8');
            key = readFileSync(k, 'utf8');
          }
        } catch {
          this.warn(`warning: cannot read ${path.join(dir, n)}; ignored`);
        }
      }
    }
    return cert !== undefined && key !== undefined ? { ca, cert, key } : { ca };
  }

  /**
   * The certificates of the file NODE_EXTRA_CA_CERTS names. Node.js adds them to its own store,
   * but a connection given CAs of its own (SSL_CERT_FILE's roots, a certs.d folder's, --root-ca)
   * trusts those alone: they are added here to every TLS connection. A file that cannot be read is
   * ignored (Node.js has said so at start-up); one that holds no certificate, which Node.js passes
   * over in silence, is warned about once and ignored.
   */
  private nodeExtraCa(): string {
    if (this.extraCa !== undefined) return this.extraCa;
    const file = this.env.NODE_EXTRA_CA_CERTS ?? '';
    this.extraCa = '';
    if (file === '') return this.extraCa;
    let problem: string | undefined;
    try {
      const text = readFileSync(file, 'utf8');
      if (text.includes('-----BEGIN CERTIFICATE-----')) this.extraCa = text;
      else problem = 'no PEM certificate in it';
    } catch {
      return this.extraCa;
    }
    if (problem !== undefined)
      this.warn(`warning: ignoring extra certificates from NODE_EXTRA_CA_CERTS ${file}: ${problem}`);
    return this.extraCa;
  }

  /** The roots that replace Node's store, when SSL_CERT_FILE or SSL_CERT_DIR is set. */
  private replacedRoots(): string[] | undefined {
    if (this.roots === undefined) this.roots = envRoots(this.env, this.warn) ?? null;
    return this.roots ?? undefined;
  }

  /**
   * The TLS context for a host, when it trusts other than Node's store (SSL_CERT_FILE or
   * SSL_CERT_DIR, NODE_EXTRA_CA_CERTS, a certs.d CA) or presents a client certificate; undefined
   * otherwise. Built once per host: Node would otherwise build one per connection, parsing every
   * certificate each time.
   */
  secureContext(host: string): SecureContext | undefined {
    if (this.contexts.has(host)) return this.contexts.get(host);
    const files = this.tlsFiles(host);
    const roots = this.replacedRoots();
    const cas = [this.nodeExtraCa(), this.rootCaPem, ...files.ca].filter((pem) => pem !== '');
    let context: SecureContext | undefined;
    if (roots !== undefined || cas.length > 0 || files.cert !== undefined) {
      const tls = process.getBuiltinModule('node:tls');
      context = tls.createSecureContext({
        // `ca` replaces Node's store: SSL_CERT_FILE and SSL_CERT_DIR stand for the system's roots.
        ...(roots !== undefined ? { ca: roots } : {}),
        ...(files.cert !== undefined ? { cert: files.cert, key: files.key } : {}),
      });
      // Added to a copy of Node's own store (its bundled roots, or the system's with
      // --use-openssl-ca), which a `ca` option would replace instead; other contexts keep theirs.
      // `context` is the native handle Node's own TLS code adds certificates through; it is not
      // documented, and test/registry/extra-ca.test.ts fails should it change.
      const native = context.context as { addCACert(pem: string): void };
      for (const pem of cas) native.addCACert(pem);
    }
    this.contexts.set(host, context);
    return context;
  }

  /** Certificate checking and the host's context for a request to `url`. */
  tlsOptions(url: URL, skipTlsVerify: boolean): TlsOptions {
    const context = url.protocol === 'https:' ? this.secureContext(url.host) : undefined;
    return {
      rejectUnauthorized: !skipTlsVerify,
      ...(context !== undefined ? { secureContext: context } : {}),
    };
  }
}
