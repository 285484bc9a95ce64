import { connect, type Socket } from "node:net";

/**
 * A raw TCP client of an HTTP server on 127.0.0.1, for what fetch cannot do: send a request a
 * few bytes at a time, hold a connection open without a request. It never closes its side
 * unless told to, so a `closed` connection is one the server closed.
 */
export interface RawClient {
  readonly socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Whether the connection is closed (by the server: the client never closes it on its own). */
  closed(): boolean;
  /** Settles when the connection is closed, or after `safetyMs` (then false): a bound, not a timing. */
  whenClosed(safetyMs: number): Promise<boolean>;
  /** Settles once the server has sent something that includes `text`, or the connection closed. */
  whenReceived(text: string, safetyMs: number): Promise<boolean>;
  destroy(): void;
}

export function rawConnect(origin: string): Promise<RawClient> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let received = "";
    let closed = false;
    const waiters = new Set<() => void>();
    const wake = () => {
      for (const waiter of waiters) waiter();
    };
    socket.on("data", (chunk) => {
      received += String(chunk);
      wake();
    });
    // A reset is the server closing too; the error is not the test's concern.
    socket.on("error", () => undefined);
    socket.on("close", () => {
      closed = true;
      wake();
    });
    const until = (done: () => boolean, safetyMs: number) =>
      new Promise<boolean>((settle) => {
        if (done()) {
          settle(true);
          return;
        }
        const check = () => {
          if (!done()) return;
          finish(true);
        };
        const finish = (value: boolean) => {
          clearTimeout(timer);
          waiters.delete(check);
          settle(value);
        };
        const timer = setTimeout(() => finish(false), safetyMs);
        waiters.add(check);
      });
    socket.once("connect", () =>
      resolve({
        socket,
        received: () => received,
        closed: () => closed,
        whenClosed: (safetyMs) => until(() => closed, safetyMs),
        whenReceived: (text, safetyMs) => until(() => closed || received.includes(text), safetyMs),
        destroy: () => socket.destroy(),
      }),
    );
    socket.once("error", reject);
  });
}

/**
 * Sends `first`, then one more `piece` every `everyMs` until the server closes the connection or
 * `maxPieces` were sent (a slow client: it never finishes). True when the server closed it.
 */
export async function trickle(
  client: RawClient,
  first: string,
  piece: string,
  options: { everyMs: number; maxPieces: number },
): Promise<boolean> {
  client.socket.write(first);
  for (let i = 0; i < options.maxPieces && !client.closed(); i += 1) {
    if (await client.whenClosed(options.everyMs)) break;
    client.socket.write(piece);
  }
  return client.closed();
}
