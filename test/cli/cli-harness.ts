import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { main } from "../../src/cli.js";
import { registerSecret } from "../helpers/known-secrets.js";

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real CLI entry in-process with captured streams. */
export async function runCli(argv: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on("data", (chunk: Buffer) => out.push(chunk.toString("utf8")));
  stderr.on("data", (chunk: Buffer) => err.push(chunk.toString("utf8")));
  const code = await main(argv, { env, stdout, stderr });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

export interface TinyService {
  readonly baseUrl: string;
  readonly writeKey: string;
  readonly readKey: string;
  /** Every Authorization header received. */
  readonly authorizations: string[];
  /** The endpoint records `GET /webhooks` answers (spec 4.6); none by default. */
  webhooks: unknown[];
  /** 403 INSUFFICIENT_SCOPE for `GET /webhooks` instead, as a key without read access there would get. */
  refuseWebhooks: boolean;
  /** Answer every request with this status (e.g. 500) instead of serving. */
  failWith(status: number | null, body?: unknown): void;
  close(): Promise<void>;
}

/**
 * A small stand-in for the service's `GET /me` (spec 4.1) and `GET /webhooks` (4.6), real HTTP on
 * 127.0.0.1, until the emulator can be used. 401 without a `code` for unknown keys, like spec 5.5.
 */
export async function startTinyService(): Promise<TinyService> {
  const writeKey = "rk_test_write_key_0123456789";
  const readKey = "rk_test_read_key_0123456789";
  registerSecret(writeKey, "tiny service write key");
  registerSecret(readKey, "tiny service read key");
  const authorizations: string[] = [];
  let failure: { status: number; body: unknown } | null = null;
  const server = createServer((req, res) => {
    const auth = req.headers.authorization ?? "";
    authorizations.push(auth);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (failure) return send(failure.status, failure.body);
    const key = auth.startsWith("Bearer ") ? auth.slice(7) : "";
    if (key !== writeKey && key !== readKey) return send(401, { error: "Invalid or revoked API key." });
    if (req.method === "GET" && req.url === "/api/v1/me") {
      return send(200, {
        organization: { id: 1, name: "Acme Corp" },
        competitors: [
          { id: 2, name: "Globex" },
          { id: 3, name: "Initech" },
        ],
        scopes: key === writeKey ? ["read", "write"] : ["read"],
        someFutureField: true,
      });
    }
    if (req.method === "GET" && req.url === "/api/v1/webhooks") {
      if (handle.refuseWebhooks) return send(403, { error: "Not allowed for this key.", code: "INSUFFICIENT_SCOPE" });
      return send(200, handle.webhooks);
    }
    return send(404, { error: "Not found." });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const handle: TinyService = {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    writeKey,
    readKey,
    authorizations,
    webhooks: [],
    refuseWebhooks: false,
    failWith(status, body = { error: "Internal error." }) {
      failure = status === null ? null : { status, body };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return handle;
}
