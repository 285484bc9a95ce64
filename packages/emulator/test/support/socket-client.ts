/** A bare `ws` Socket Mode client for wire-level tests: every frame kept, read in order. */
import { once } from "node:events";
import { WebSocket } from "ws";

export type Frame = Record<string, unknown>;

export interface PlainSocketClient {
  readonly socket: WebSocket;
  /** Every JSON frame received so far, in order. */
  readonly frames: Frame[];
  /** The next frame not read yet (resolves when it arrives). */
  next(): Promise<Frame>;
  /** The next envelope frame (one with an envelope_id), skipping others. */
  nextEnvelope(): Promise<Frame>;
  ack(envelopeId: string, payload?: unknown): void;
  close(): Promise<void>;
}

export async function connectPlain(url: string): Promise<PlainSocketClient> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  const frames: Frame[] = [];
  let read = 0;
  let wake: (() => void) | undefined;
  socket.on("message", (data) => {
    frames.push(JSON.parse(data.toString()) as Frame);
    wake?.();
  });
  await once(socket, "open");
  const next = async (): Promise<Frame> => {
    while (read >= frames.length) {
      if (socket.readyState !== WebSocket.OPEN) throw new Error("socket closed while waiting for a frame");
      await new Promise<void>((resolve) => {
        wake = resolve;
        socket.once("close", resolve);
      });
      wake = undefined;
    }
    const frame = frames[read] as Frame;
    read += 1;
    return frame;
  };
  return {
    socket,
    frames,
    next,
    async nextEnvelope() {
      for (;;) {
        const frame = await next();
        if (typeof frame.envelope_id === "string") return frame;
      }
    },
    ack(envelopeId, payload) {
      socket.send(
        JSON.stringify(payload === undefined ? { envelope_id: envelopeId } : { envelope_id: envelopeId, payload }),
      );
    },
    async close() {
      if (socket.readyState === WebSocket.CLOSED) return;
      const closed = once(socket, "close");
      socket.close(1000);
      await closed;
    },
  };
}

/** Resolves with the HTTP status a refused WebSocket handshake was answered with. */
export async function refusedStatus(url: string): Promise<number> {
  const socket = new WebSocket(url);
  return new Promise((resolve, reject) => {
    socket.on("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.on("open", () => {
      socket.terminate();
      reject(new Error(`the handshake to ${url} was accepted`));
    });
    socket.on("error", () => undefined);
  });
}
