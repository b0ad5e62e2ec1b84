/**
 * One authenticated session per registry endpoint, shared by everything the client does with it
 * (pulls now; pushes would take theirs from here too, with their own scopes).
 */
import { RegistrySession } from './auth/session.js';
import type { ImageReference } from './reference.js';
import type { Transport } from './transport.js';

export interface SessionPoolOptions {
  transport: Transport;
  useHttp: boolean;
  skipTlsVerify: boolean;
  env: NodeJS.ProcessEnv;
  warn: (line: string) => void;
}

export class SessionPool {
  private readonly sessions = new Map<string, RegistrySession>();
  private readonly o: SessionPoolOptions;

  constructor(o: SessionPoolOptions) {
    this.o = o;
  }

  /**
   * The session for a reference's host. `insecure` allows plain HTTP and unverified TLS there
   * (registries.conf); `mirror` gives up on a host that cannot be reached instead of retrying it.
   */
  for(ref: ImageReference, insecure = false, mirror = false): RegistrySession {
    const key = `${ref.apiHost}|${insecure}|${mirror}`;
    let s = this.sessions.get(key);
    if (s === undefined) {
      s = new RegistrySession({
        transport: this.o.transport,
        host: ref.apiHost,
        registry: ref.registry,
        useHttp: this.o.useHttp,
        skipTlsVerify: this.o.skipTlsVerify || insecure,
        env: this.o.env,
        warn: (line) => this.o.warn(`warning: ${line}`),
        ...(mirror ? { dialOnce: true } : {}),
      });
      this.sessions.set(key, s);
    }
    return s;
  }
}
