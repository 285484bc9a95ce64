/**
 * A loopback proxy in front of the emulator that plays two answers of the real service the
 * emulator does not give on its own: a bulk add that skips a profile with a reason of the
 * service's choosing (`profile_unavailable`, `invalid_url`: the URL is kept from the emulator, so
 * the person is really not added), and a bulk add whose answer is lost after the service did it.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface RefusingProxy {
  readonly baseUrl: string;
  /** Skip these URLs in bulk adds with this reason and message. */
  refuse(url: string, reason: string, message: string): void;
  /** The next bulk add is carried out, and its answer cut off. */
  loseNextBulkAnswer(): void;
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export async function startRefusingProxy(targetBaseUrl: string): Promise<RefusingProxy> {
  const target = new URL(targetBaseUrl);
  const refusals = new Map<string, { reason: string; message: string }>();
  let loseNext = false;
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await body(req);
      const path = req.url ?? "/";
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string" && !["host", "connection", "content-length"].includes(name))
          headers[name] = value;
      }
      const forward = (payload: Buffer | undefined) =>
        fetch(new URL(path, target.origin), {
          method: req.method ?? "GET",
          headers,
          ...(payload && payload.length > 0 ? { body: payload } : {}),
        });
      if (req.method === "POST" && path.endsWith("/employees/bulk")) {
        const input = JSON.parse(raw.toString("utf8")) as { networkUrls: string[]; [k: string]: unknown };
        const refused = input.networkUrls.filter((u) => refusals.has(u));
        const kept = input.networkUrls.filter((u) => !refusals.has(u));
        const answer =
          kept.length > 0
            ? ((await (await forward(Buffer.from(JSON.stringify({ ...input, networkUrls: kept })))).json()) as {
                added: unknown[];
                skipped: unknown[];
                [k: string]: unknown;
              })
            : { added: [], skipped: [] };
        if (loseNext) {
          loseNext = false;
          req.socket.destroy();
          return;
        }
        const skipped = [
          ...answer.skipped,
          ...refused.map((networkUrl) => ({ networkUrl, ...refusals.get(networkUrl) })),
        ];
        res.writeHead(skipped.length > 0 ? 207 : 201, { "content-type": "application/json" });
        res.end(JSON.stringify({ ...answer, skipped }));
        return;
      }
      const answer = await forward(raw);
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!["content-length", "content-encoding", "transfer-encoding", "connection"].includes(name))
          out[name] = value;
      });
      res.writeHead(answer.status, out);
      res.end(Buffer.from(await answer.arrayBuffer()));
    })().catch((error: unknown) => {
      res.writeHead(502).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname}`,
    refuse: (url, reason, message) => refusals.set(url, { reason, message }),
    loseNextBulkAnswer: () => {
      loseNext = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
