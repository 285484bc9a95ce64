/** A local webhook receiver on 127.0.0.1 that records every delivery with its raw body. */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Delivery {
  headers: IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown>;
  method: string;
  path: string;
}

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** Status answered from now on (default 200). */
  respondWith(status: number, headers?: Record<string, string>): void;
  /** Resolves once at least `n` deliveries arrived (real time, short), or rejects. */
  waitFor(n: number, timeoutMs?: number): Promise<Delivery[]>;
  /** Gives in-flight deliveries a moment, then returns the count (for "nothing more arrives"). */
  settle(ms?: number): Promise<number>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  let status = 200;
  let extraHeaders: Record<string, string> = {};
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        body = {};
      }
      deliveries.push({ headers: req.headers, raw, body, method: req.method ?? "", path: req.url ?? "" });
      res.writeHead(status, { "content-type": "text/plain", ...extraHeaders });
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    respondWith(s, h = {}) {
      status = s;
      extraHeaders = h;
    },
    async waitFor(n, timeoutMs = 3000) {
      const until = Date.now() + timeoutMs;
      while (deliveries.length < n) {
        if (Date.now() > until) throw new Error(`expected ${n} deliveries, got ${deliveries.length}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return deliveries;
    },
    async settle(ms = 150) {
      await new Promise((r) => setTimeout(r, ms));
      return deliveries.length;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

/** Verifies the 6.4 signature of a delivery; returns the unix seconds of `t`. */
export function verifySignature(d: Delivery, secret: string): number {
  const header = String(d.headers["x-service-signature"] ?? "");
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (match === null) throw new Error(`malformed signature header ${header}`);
  const t = match[1] ?? "";
  const expected = createHmac("sha256", secret).update(`${t}.${d.raw}`).digest();
  const got = Buffer.from(match[2] ?? "", "hex");
  if (got.length !== expected.length || !timingSafeEqual(got, expected)) throw new Error("signature mismatch");
  return Number(t);
}
