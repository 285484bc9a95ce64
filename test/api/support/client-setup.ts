import { RetentionClient, type RetentionClientOptions } from "../../../src/api/client.js";
import { RateLimiter } from "../../../src/api/rate-limiter.js";
import { type ScriptedServer, startScriptedServer } from "./scripted-server.js";

export const TEST_KEY = "rs_test_key_5f1c0d9e8a7b6c5d4e3f";

export interface Harness {
  server: ScriptedServer;
  client(options?: Partial<RetentionClientOptions>): RetentionClient;
  close(): Promise<void>;
}

/** A scripted server plus clients pointed at it (small backoff, generous bucket), all closed together. */
export async function startHarness(): Promise<Harness> {
  const server = await startScriptedServer();
  const clients: RetentionClient[] = [];
  return {
    server,
    client(options = {}) {
      const client = new RetentionClient({
        baseUrl: server.baseUrl,
        apiKey: TEST_KEY,
        retryBaseDelayMs: 5,
        timeoutMs: 2_000,
        rateLimiter: new RateLimiter({ requestsPerMinute: 6_000 }),
        ...options,
      });
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await server.close();
    },
  };
}
