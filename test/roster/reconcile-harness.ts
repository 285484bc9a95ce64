import { type EmulatorHandle, startEmulator } from "@retention-sync/emulator";
import { RetentionClient } from "../../src/api/client.js";
import { type ConfigInput, configSchema } from "../../src/config/schema.js";
import { type Logger, silentLogger } from "../../src/logger.js";
import { type ReconcileOptions, reconcileOnce } from "../../src/roster/reconcile-once.js";
import type { ReconcileReport } from "../../src/roster/report.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";
import { rosterDir } from "../helpers/roster-files.js";

type RosterInput = NonNullable<ConfigInput["roster"]>;

/** An empty paying company on the emulator, a client, an in-memory store and a roster folder. */
export interface Harness {
  readonly emulator: EmulatorHandle;
  readonly client: RetentionClient;
  readonly store: StateStore;
  readonly files: Awaited<ReturnType<typeof rosterDir>>;
  control(path: string, body?: unknown): Promise<unknown>;
  reconcile(file: string, roster?: RosterInput, options?: ReconcileOptions, logger?: Logger): Promise<ReconcileReport>;
  /** Write requests (POST/PATCH/DELETE under /api/v1) the emulator received since the last call. */
  takeWrites(): Promise<Array<{ method: string; path: string; status: number }>>;
  roster(): Promise<Array<{ networkUrl: string; tracked: boolean; status: string }>>;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const emulator = await startEmulator({ seed: "empty", importDelayMs: 0, rateLimitPerMinute: 100_000, addHoldMs: 0 });
  const client = new RetentionClient({
    baseUrl: emulator.baseUrl,
    apiKey: emulator.writeKey,
    requestsPerMinute: 100_000,
    retryBaseDelayMs: 5,
    maxRetries: 2,
  });
  const store = await openStateStore(":memory:");
  const files = await rosterDir();
  let seen = 0;
  const control = async (path: string, body?: unknown) => {
    const response = await fetch(`${emulator.url}/_emulator/${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`control ${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  return {
    emulator,
    client,
    store,
    files,
    control,
    reconcile: (file, roster = {}, options = {}, logger = silentLogger()) =>
      reconcileOnce(
        {
          config: configSchema.parse({
            api: { url: emulator.baseUrl, key: emulator.writeKey },
            roster: { file, ...roster },
          }),
          client,
          store,
          logger,
        },
        options,
      ),
    async takeWrites() {
      const { requests } = (await control("requests")) as {
        requests: Array<{ method: string; path: string; status: number }>;
      };
      const fresh = requests.slice(seen);
      seen = requests.length;
      return fresh.filter((r) => r.method !== "GET" && r.path.startsWith("/api/v1"));
    },
    async roster() {
      const out: Array<{ networkUrl: string; tracked: boolean; status: string }> = [];
      for await (const e of client.iterateEmployees({ pageSize: 100 })) out.push(e);
      return out;
    },
    async close() {
      await client.close();
      await store.close();
      await emulator.close();
      await files.cleanup();
    },
  };
}
