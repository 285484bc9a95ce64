import { createAlertPipeline } from "../src/alerts/alert-pipeline.js";
import { alertSettings } from "../src/alerts/alert-settings.js";
import { RetentionClient } from "../src/api/client.js";
import { createDelivery } from "../src/app/runtime.js";
import { configSchema } from "../src/config/schema.js";
import { silentLogger } from "../src/logger.js";
import { createSlackWebClient, webClientPoster } from "../src/slack/slack-poster.js";
import { openStateStore } from "../src/store/state-store.js";
import { BOTH_LENS_ROUTES } from "./alert-routes.js";
import { childMain, progress } from "./child-process.js";
import type { PollPathChildInput, PollPathPass } from "./poll-path.js";
import { addCosts, ClientSocketBytes, cpuMsSince, endSpan, startSpan, stateFileBytes } from "./proc-stats.js";
import { singleDrafts } from "./synthetic-changes.js";

/** Emulator seconds between two passes: 2,000 alerts a day in passes of 10 is one pass per 432 s. */
const PASS_SPACING_S = 432;

/** Slack posts measured on their own after the passes (after 20 more to warm up). */
const SLACK_POSTS = 100;

/**
 * The daemon's side of the poll-path measurement, alone in this process: a real state store (a
 * SQLite file, or a database on the bench's Postgres), the API client and the Slack client. Before each measured pass the emulator (in the parent) is told
 * to raise changes; the pass itself (read, hand over, post, every write) is what is measured.
 */
childMain(async (input: PollPathChildInput) => {
  const sockets = new ClientSocketBytes();
  const store = await openStateStore(input.stateLocation);
  const target = {
    stateFile: input.stateFile,
    serverPid: input.serverPid,
    serverPort: input.serverPid === undefined ? undefined : Number(new URL(input.stateLocation).port),
  };
  const logger = silentLogger();
  const config = configSchema.parse({
    slack: { token: input.slackToken, apiUrl: input.slackUrl, messagesPerSecondPerChannel: input.messagesPerSecond },
    alerts: { routes: BOTH_LENS_ROUTES },
  });
  const settings = alertSettings(config);
  const quietSpellMs = (settings.burstPerChannel / settings.messagesPerSecondPerChannel) * 1000;
  const client = new RetentionClient({ baseUrl: input.apiUrl, apiKey: input.apiKey, requestsPerMinute: 1_000_000 });
  // Two delivery services over the one store and queue: the pipeline's has no poster, so its pass
  // ends at the hand-over (its flush is a no-op); the second one then posts what the pass queued,
  // exactly as the pass's own flush would. The split shows what each half costs.
  const poster = webClientPoster(createSlackWebClient({ token: input.slackToken, apiUrl: input.slackUrl, logger }));
  const sending = createDelivery(settings, { store, poster, logger });
  const pipeline = createAlertPipeline({
    settings,
    store,
    client,
    delivery: createDelivery(settings, { store, logger }),
    logger,
  });

  const raise = async (perLens: number) => {
    for (const organizationId of [input.organizationId, input.competitorId]) {
      for (let left = perLens; left > 0; left -= 1_000) {
        const response = await fetch(`${input.controlUrl}/_emulator/signals`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ count: Math.min(1_000, left), organizationId }),
        });
        if (!response.ok) throw new Error(`signals: HTTP ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
      }
    }
  };

  // The emulator's clock moves PASS_SPACING_S between passes, as a day of 2,000 alerts in passes of
  // 10 would: each pass reads again the changes of the last alerts.cursorOverlap (10 minutes), and
  // back-to-back passes would each read the last 10 minutes of the bench's whole run.
  const advanceClock = async (): Promise<Date> => {
    const response = await fetch(`${input.controlUrl}/_emulator/clock`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ advanceSeconds: PASS_SPACING_S }),
    });
    if (!response.ok) throw new Error(`clock: HTTP ${response.status} ${await response.text()}`);
    return new Date(((await response.json()) as { now: string }).now);
  };

  const pass = async (kind: PollPathPass["kind"], perLens: number, measured: boolean): Promise<PollPathPass> => {
    const now = await advanceClock();
    await raise(perLens);
    // --poll-gc forced only (the earlier method; see runPollPath): a full collection, outside the
    // measurement, and its background sweeping ends before the pass.
    if (input.forcedGc) globalThis.gc?.();
    // Outside the measurement: the channels' burst allowance refills, as it has between two real
    // passes (alerts.pollInterval apart, while a refill takes burst / pace seconds).
    await new Promise((settled) => setTimeout(settled, Math.max(50, quietSpellMs)));
    const span = startSpan(sockets, target);
    const report = await pipeline.poll({ now, dryRun: false });
    const handOver = endSpan(span, sockets, target);
    const second = startSpan(sockets, target);
    let sent = 0;
    // Whatever a pass leaves behind (a 429 pause) belongs to its cost too.
    // (Each flush reports what still waits: the bench asks the store nothing of its own.)
    for (let i = 0, pending = 1; i < 10 && pending > 0; i += 1) {
      const flushed = await sending.flush();
      sent += flushed?.sent ?? 0;
      pending = flushed?.pending ?? 0;
    }
    const delivery = endSpan(second, sockets, target);
    const cost = addCosts(handOver, delivery);
    const result: PollPathPass = {
      kind,
      measured,
      alerts: report.alerts,
      changesRead: report.lenses.reduce((n, lens) => n + lens.fetched, 0),
      messages: sent,
      digestChannels: report.digestChannels.length,
      ...cost,
      handOverCpuMs: handOver.cpuMs,
      handOverFileWriteBytes: handOver.fileWriteBytes,
      ...(handOver.server ? { handOverServer: handOver.server } : {}),
    };
    progress(
      `poll path ${kind}${measured ? "" : " (warm-up)"}: ${result.alerts} alerts (${result.changesRead} changes read), ${sent} messages, ` +
        `${cost.cpuMs.toFixed(0)} ms CPU (hand-over ${handOver.cpuMs.toFixed(0)}), ` +
        `${((cost.fileWriteBytes ?? 0) / 1024).toFixed(0)} KiB to files` +
        (cost.server
          ? `; server ${cost.server.cpuMs.toFixed(0)} ms CPU, ${(cost.server.fileWriteBytes / 1024).toFixed(0)} KiB to files ` +
            `(kernel write_bytes ${(cost.server.writeBytes / 1024).toFixed(0)} KiB)`
          : ""),
    );
    return result;
  };

  const passes: PollPathPass[] = [];
  try {
    // The first passes pay for compiling the code they run (V8 compiles a function once it has run
    // often enough, over the first few hundred alerts): measured and reported apart, not counted.
    // Single-message passes first: a pass reads again the changes of the last 10 minutes, which
    // after a burst would be the burst: that cost belongs to the burst, not to single messages.
    await pipeline.poll({ now: await advanceClock(), dryRun: false });
    for (let i = 0; i < input.singleWarmups; i += 1) passes.push(await pass("single", input.single / 2, false));
    for (let i = 0; i < input.singlePasses; i += 1) passes.push(await pass("single", input.single / 2, true));
    passes.push(await pass("digest", Math.min(200, input.burst / 2), false));
    for (let i = 0; i < input.burstPasses; i += 1) passes.push(await pass("digest", input.burst / 2, true));
    // What one chat.postMessage costs the daemon by itself (the Slack SDK, HTTP, no store), back to
    // back: part of every single message's cost above.
    const drafts = await singleDrafts(SLACK_POSTS + 20, 50_000_000);
    let slackPostCpuMs = 0;
    for (const [i, draft] of drafts.entries()) {
      const cpu = process.cpuUsage();
      await poster.postMessage({ channel: draft.channel, text: draft.message.text, blocks: draft.message.blocks });
      if (i >= 20) slackPostCpuMs += cpuMsSince(cpu);
    }
    return {
      passes,
      slackPostCpuMs: slackPostCpuMs / SLACK_POSTS,
      slackPosts: SLACK_POSTS,
      stateFileBytes: input.stateFile === undefined ? { db: 0, wal: 0 } : stateFileBytes(input.stateFile),
    };
  } finally {
    await client.close();
    await store.close();
  }
});
