import { join } from "node:path";
import sqlite3 from "sqlite3";
import { childMain, progress } from "./child-process.js";
import type { GrowthDay, GrowthInput, GrowthRun } from "./growth.js";
import { stateFileBytes } from "./proc-stats.js";
import { installSimulatedClock } from "./simulated-clock.js";

const DAY_MS = 86_400_000;
/** The daemon's sweep interval (`startDaemon`: every 10 minutes, and once at start). */
const SWEEP_EVERY_MS = 10 * 60_000;
/** 2026-01-01T00:00:00Z: where simulated time starts. */
const START_MS = Date.UTC(2026, 0, 1);

interface Counts {
  keys: number;
  waiting: number;
  acked: number;
  kv: number;
  pages: number;
  freePages: number;
}

/** Row counts through a second, read-only connection (what the store keeps, by kind). */
function counter(file: string): { read(): Promise<Counts>; close(): Promise<void> } {
  const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY);
  const one = (sql: string) =>
    new Promise<number>((resolve, reject) =>
      db.get(sql, (error: Error | null, row: Record<string, number> | undefined) =>
        error ? reject(error) : resolve(Object.values(row ?? {})[0] ?? 0),
      ),
    );
  return {
    read: async () => ({
      keys: await one("SELECT count(*) FROM key_sets"),
      waiting: await one("SELECT count(*) FROM queue_items"),
      acked: await one("SELECT count(*) FROM key_sets WHERE name LIKE '%#acked'"),
      kv: await one("SELECT count(*) FROM kv"),
      pages: await one("PRAGMA page_count"),
      freePages: await one("PRAGMA freelist_count"),
    }),
    close: () => new Promise((resolve) => db.close(() => resolve())),
  };
}

/**
 * Simulated days of alerts through the production path on a real state file: the poll pass of
 * `createAlertPipeline` (dedupe, enrich, plan, one hand-over transaction) and the delivery
 * service (mark posting, post, mark sent, thread root) with an in-process Slack, the clock moved
 * pass by pass, and the store swept every 10 simulated minutes as the daemon does.
 */
childMain(async (input: GrowthInput): Promise<GrowthRun> => {
  const clock = installSimulatedClock(START_MS);
  // Loaded after the clock: any default `Date.now` taken at construction reads simulated time.
  const { createAlertPipeline } = await import("../src/alerts/alert-pipeline.js");
  const { alertSettings } = await import("../src/alerts/alert-settings.js");
  const { createDelivery } = await import("../src/app/runtime.js");
  const { configSchema } = await import("../src/config/schema.js");
  const { silentLogger } = await import("../src/logger.js");
  const { openStateStore } = await import("../src/store/state-store.js");
  const { BOTH_LENS_ROUTES } = await import("./alert-routes.js");
  const { InMemoryPollClient, seededRandom, syntheticChange } = await import("./synthetic-changes.js");

  const file = join(input.dir, `growth-${input.retentionDays}d-${input.sentRetentionDays}d.sqlite`);
  const store = await openStateStore(file);
  const logger = silentLogger();
  const config = configSchema.parse({
    slack: { token: "xoxb-bench", apiUrl: "http://127.0.0.1:9/api/" },
    alerts: { routes: BOTH_LENS_ROUTES, dedupeRetention: `${input.retentionDays}d` },
  });
  const settings = alertSettings(config);
  let posted = 0;
  let postedAlerts = 0;
  const poster = {
    async postMessage(message: { channel: string; text: string; blocks?: unknown }) {
      posted += 1;
      const blocks = Array.isArray(message.blocks)
        ? (message.blocks as Array<{ type?: string; text?: { text?: string } }>)
        : [];
      const digest = message.text.includes("risk alerts");
      postedAlerts += digest
        ? blocks.filter((b) => b.type === "section").reduce((n, b) => n + (b.text?.text ?? "").split("\n").length, 0)
        : 1;
      return { channel: message.channel, ts: `${Math.floor(clock.now() / 1000)}.${String(posted).padStart(6, "0")}` };
    },
    lookupUserByEmail: async () => "U0BENCH",
    openDirectMessage: async () => "D0BENCH",
  };
  const client = new InMemoryPollClient();
  const pipeline = createAlertPipeline({
    settings,
    store,
    client,
    // Sent marks and thread roots follow the delivery settings' retention (createDelivery passes
    // alerts.dedupeRetention); a shorter one shows what the Outbox's own 7-day default would keep.
    delivery: createDelivery({ ...settings, retentionMs: input.sentRetentionDays * DAY_MS }, { store, poster, logger }),
    logger,
  });
  const counts = counter(file);
  const random = seededRandom(42);
  const perPass = input.alertsPerDay / input.passesPerDay;
  const days: GrowthDay[] = [];
  let nextId = 1;
  let owed = 0;
  let alerts = 0;
  let sweeps = 0;
  let lastSweep = -Infinity;
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  try {
    await store.sweep(clock.now());
    for (let day = 0; day < input.days; day += 1) {
      const dayCpu = process.cpuUsage();
      for (let pass = 0; pass < input.passesPerDay; pass += 1) {
        const now = START_MS + day * DAY_MS + Math.floor((pass * DAY_MS) / input.passesPerDay);
        clock.set(now);
        if (now - lastSweep >= SWEEP_EVERY_MS) {
          await store.sweep(now);
          sweeps += 1;
          lastSweep = now;
        }
        owed += perPass;
        const count = Math.floor(owed);
        owed -= count;
        for (let i = 0; i < count; i += 1) {
          const lens = i % 2 === 0 ? "retention" : "poaching";
          const person = Math.floor(random() * input.people);
          const detectedAt = new Date(now - 1_000).toISOString();
          client.add(lens, [syntheticChange(nextId, lens, person, detectedAt, random)]);
          nextId += 1;
        }
        alerts += count;
        await pipeline.poll({ now: new Date(now), dryRun: false });
      }
      // The day's last sweep, at its end, so the size is the swept size.
      const end = START_MS + (day + 1) * DAY_MS - 1;
      clock.set(end);
      const sweep = await store.sweep(end);
      sweeps += 1;
      lastSweep = end;
      const cpu = process.cpuUsage(dayCpu);
      const files = stateFileBytes(file);
      const rows = await counts.read();
      days.push({
        day: day + 1,
        alerts,
        dbBytes: files.db,
        walBytes: files.wal,
        ...rows,
        expiredLastSweep: sweep.expired,
        cpuMs: (cpu.user + cpu.system) / 1000,
      });
      progress(
        `growth (${input.retentionDays} d / ${input.sentRetentionDays} d) day ${day + 1}: ${(files.db / 1_048_576).toFixed(2)} MiB ` +
          `+ wal ${(files.wal / 1024).toFixed(0)} KiB, ${rows.keys} keys, ${rows.acked} sent marks, ${rows.kv} kv rows, ` +
          `${rows.freePages} free pages, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU`,
      );
    }
    const cpu = process.cpuUsage(cpuStart);
    return {
      alertsPerDay: input.alertsPerDay,
      passesPerDay: input.passesPerDay,
      retentionDays: input.retentionDays,
      sentRetentionDays: input.sentRetentionDays,
      people: input.people,
      simulatedDays: input.days,
      byDay: days,
      alerts,
      postedMessages: posted,
      postedAlerts,
      waitingAtEnd: await pipeline.delivery.outbox.size(),
      sweeps,
      cpuMs: (cpu.user + cpu.system) / 1000,
      wallMs: performance.now() - wallStart,
    };
  } finally {
    await counts.close();
    await store.close();
  }
});
