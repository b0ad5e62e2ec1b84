import { execFileSync, spawnSync } from 'node:child_process';
import net from 'node:net';
import { PATIENCE_MS } from '../patience.js';

/** True when `name` is on PATH. */
export function have(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

/**
 * The registry tests run against real servers and skip nothing: a missing tool fails the suite with
 * a message saying how to install it.
 */
export function requireTools(...names: string[]): void {
  const missing = names.filter((n) => !have(n));
  if (missing.length > 0) {
    throw new Error(
      `registry tests need ${missing.join(', ')} on PATH; install with ` +
        '`apt-get install -y docker-registry apache2-utils openssl zstd skopeo tmux` (as .ci/run does)',
    );
  }
}

/** A free TCP port on 127.0.0.1 (the kernel picks it; we release it just before use). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Wait until something accepts TCP connections on the port, or the process meant to listen there
 * has gone (`alive` says false: no use waiting longer); bounded by PATIENCE_MS.
 */
export async function waitForPort(
  port: number,
  timeoutMs = PATIENCE_MS,
  alive: () => boolean = () => true,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`the process meant to listen on 127.0.0.1:${port} exited`);
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect(port, '127.0.0.1');
      sock.once('connect', () => {
        sock.destroy();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`nothing listening on 127.0.0.1:${port} after ${timeoutMs} ms`);
}

export function run(cmd: string, args: string[], input?: Buffer): Buffer {
  return execFileSync(cmd, args, { input, stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 });
}
