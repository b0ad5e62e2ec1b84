/**
 * Unary answers kept for the next identical request: a served catalog never changes, and its
 * clients ask the same questions again and again (OLM's resolver asks for the same packages and
 * bundles at every resolution). Answers are kept framed as on the wire, so a repeated call costs
 * neither the query, nor the encoding, nor a copy. Bounded in bytes: the oldest answers go first,
 * and an answer larger than an eighth of the bound is made every time.
 */
import { frameMessage } from './grpc-wire.js';

export class AnswerCache {
  private readonly answers = new Map<string, Buffer>();
  private bytes = 0;
  private readonly limit: number;

  /** `limit`: bytes of framed answers (and of their keys) held at most; 0 keeps nothing. */
  constructor(limit: number) {
    this.limit = limit;
  }

  /**
   * The framed answer of `method` to `request`: kept, or made by `make` (whose failure rejects and
   * is not kept).
   */
  async answer(
    method: string,
    request: Buffer,
    make: () => Uint8Array | Promise<Uint8Array>,
  ): Promise<Buffer> {
    const key = `${method}\n${request.toString('latin1')}`;
    const kept = this.answers.get(key);
    if (kept !== undefined) return kept;
    const framed = frameMessage(await make());
    this.keep(key, framed);
    return framed;
  }

  /** Whether the answer of `method` to `request` is kept (its request decoded once already). */
  has(method: string, request: Buffer): boolean {
    return this.answers.has(`${method}\n${request.toString('latin1')}`);
  }

  /** Bytes held now (answers and keys). */
  get size(): number {
    return this.bytes;
  }

  private keep(key: string, framed: Buffer): void {
    const cost = framed.length + key.length;
    if (cost > this.limit / 8 || this.answers.has(key)) return;
    for (const [oldKey, old] of this.answers) {
      if (this.bytes + cost <= this.limit) break;
      this.answers.delete(oldKey);
      this.bytes -= old.length + oldKey.length;
    }
    this.answers.set(key, framed);
    this.bytes += cost;
  }
}
