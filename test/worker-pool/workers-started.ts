import type { Worker } from 'node:worker_threads';

/**
 * What `work` returns and how many worker threads were started while it ran (the process's
 * 'worker' events): how a test sees that work went to threads without asking the code.
 */
export async function workersStartedBy<T>(work: () => Promise<T>): Promise<{ result: T; started: number }> {
  let started = 0;
  const count = (_w: Worker): void => void started++;
  process.on('worker', count);
  try {
    return { result: await work(), started };
  } finally {
    process.off('worker', count);
  }
}
