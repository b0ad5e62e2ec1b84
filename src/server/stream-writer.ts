/**
 * Writing a server stream to a client that may read slowly or not at all. grpc-js's stream takes 16
 * messages before `write` says to wait, whatever their size, and hands HTTP/2 one at a time: with
 * ListBundles' largest messages (a bundle's manifests, hundreds of KiB) a client that stops
 * reading held 3-5 MiB of the server's memory per stream. Here the next message is also held back
 * while the messages written and not yet taken by HTTP/2 reach STREAM_BUFFER_BYTES, so what a
 * stalled stream holds is that much and one message (grpc-go holds about 1.5 MiB per such stream);
 * small messages, the usual ones, keep flowing as before.
 */
import type * as grpc from '@grpc/grpc-js';

/** What a stream may have written that HTTP/2 has not taken yet, before the next message waits. */
export const STREAM_BUFFER_BYTES = 1024 * 1024;

type Stream = grpc.ServerWritableStream<Buffer, Uint8Array>;

/**
 * Resolves when the stream drains, or (`wake` given) when `ready()` holds after HTTP/2 took a
 * message, or when the call ends; leaves no listener behind.
 */
function until(call: Stream, ready: () => boolean, wake?: Set<() => void>): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (!ready() && !call.cancelled) return;
      wake?.delete(check);
      call.off('drain', check);
      call.off('cancelled', check);
      call.off('close', check);
      resolve();
    };
    wake?.add(check);
    call.on('drain', check);
    call.on('cancelled', check);
    call.on('close', check);
  });
}

/** Write each message when the stream can take it; stop when the client has gone. */
export async function writeStream(
  call: Stream,
  messages: AsyncIterable<Uint8Array>,
  limit = STREAM_BUFFER_BYTES,
): Promise<void> {
  let pending = 0;
  const wake = new Set<() => void>();
  const taken = (bytes: number) => (): void => {
    pending -= bytes;
    for (const w of [...wake]) w();
  };
  for await (const m of messages) {
    if (call.cancelled) return;
    pending += m.length;
    if (!call.write(m, taken(m.length))) await until(call, () => true);
    if (pending >= limit) await until(call, () => pending < limit, wake);
  }
}
