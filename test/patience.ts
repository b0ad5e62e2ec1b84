/**
 * How long a test waits for something that should happen (a test to end, a server to answer, a
 * child process to start or exit) before calling it a hang. It does not judge speed: on two cores
 * at a load average of 20 a process gets a tenth of a core and takes ten times its idle time, and
 * a test must pass there as on an idle machine. Waits are polled, so they cost nothing when what
 * they wait for comes early.
 */
export const PATIENCE_MS = 600_000;

/** Poll `cond` every `everyMs` until it holds (true) or PATIENCE_MS has passed (false). */
export async function eventually(cond: () => boolean, everyMs = 20): Promise<boolean> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    if (cond()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
