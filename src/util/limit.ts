/** A counting semaphore: at most `n` tasks run at once, the rest wait in order. */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  private readonly n: number;

  constructor(n: number) {
    this.n = n;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.n) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
