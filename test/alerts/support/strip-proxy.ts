/**
 * A loopback proxy in front of the emulator that serves `/changes` without the person embedded in
 * each change item (spec 2.8 does not promise one), so enrichment has to find people itself. Every
 * other request passes through unchanged.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface StripProxy {
  /** The emulator's `/api/v1` behind the proxy's origin. */
  readonly baseUrl: string;
  close(): Promise<void>;
}

export async function startStripProxy(targetBaseUrl: string): Promise<StripProxy> {
  const target = new URL(targetBaseUrl);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      try {
        const url = new URL(req.url ?? "/", target.origin);
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === "string" && !["host", "connection", "content-length"].includes(name))
            headers[name] = value;
        }
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(url, { method: req.method ?? "GET", headers, ...(body ? { body } : {}) });
        let text = await answer.text();
        if (req.method === "GET" && url.pathname.endsWith("/changes") && answer.ok) {
          const page = JSON.parse(text) as { items: Array<Record<string, unknown>> };
          for (const item of page.items) delete item.employee;
          text = JSON.stringify(page);
        }
        res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
        res.end(text);
      } catch (error) {
        res.writeHead(502, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: String(error) }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
