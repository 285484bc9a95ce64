import type { Logger } from "../logger.js";
import { channelAccessFix, classifySlackError, type SlackFailure } from "../slack/classify-slack-error.js";
import type { PostedMessage, SlackPoster } from "../slack/slack-poster.js";
import { sleepUnlessAborted } from "../timers.js";
import type { ChannelPacer } from "./channel-pacer.js";
import type { DeliveryEvents } from "./delivery-events.js";
import {
  type Outbox,
  type OutboxDraft,
  type OutboxEntry,
  postedRecordPut,
  type ThreadIndex,
  type WaitingMessage,
} from "./outbox.js";

export interface RetryPolicy {
  /** First backoff after a retryable failure; doubles each time. */
  readonly baseMs: number;
  readonly maxMs: number;
  /** Attempts per entry within one flush; afterwards the entry waits for the next flush. */
  readonly attemptsPerFlush: number;
}

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 1000, maxMs: 30_000, attemptsPerFlush: 4 };

/** Turns a channel's backlog of single alerts into fewer messages (digests). */
export interface Coalesce<P> {
  /** Whether a backlog of `count` single alerts is worth reading: decided on the count alone, before any body is read. */
  considers(count: number): boolean;
  /** The messages that replace the backlog, or undefined to keep it as it is. */
  digest(channel: string, waiting: readonly OutboxDraft<P>[]): readonly OutboxDraft<P>[] | undefined;
}

/** How many bodies a channel's drain reads at a time, as it posts. */
const BODY_BATCH = 20;

export interface OutboxSenderOptions<P = unknown> {
  readonly outbox: Outbox<P>;
  readonly threads: ThreadIndex;
  readonly poster: SlackPoster;
  readonly pacer: ChannelPacer;
  readonly logger: Logger;
  readonly retry?: RetryPolicy;
  /** A 429 asking for longer than this leaves the channel for the next flush instead of waiting. */
  readonly maxRateLimitWaitMs?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Only entries not caught mid-post are offered. */
  readonly coalesce?: Coalesce<P> | undefined;
  /**
   * Shutdown: a flush stops before its next post (and wakes from pacing and back-off waits) once
   * this aborts; what was not posted stays in the outbox for the next start.
   */
  readonly signal?: AbortSignal | undefined;
  /** Told of a channel Slack refuses posts to until an operator acts, and of one accepted again. */
  readonly events?: DeliveryEvents | undefined;
  /** Test seam: runs between Slack's confirmation and mark-sent, where a crash causes a double post. */
  readonly afterPost?: (entry: OutboxEntry<P>) => Promise<void> | void;
}

export interface FlushReport {
  sent: number;
  /** Entries still waiting after this flush. */
  pending: number;
  rateLimited: number;
  retryableFailures: number;
  permanentFailures: number;
  /** Entries found marked "posting" from an earlier run: they may be in Slack already and are posted again. */
  possibleDuplicates: number;
  /** Channels left with a permanent error, and the error. */
  blockedChannels: Record<string, string>;
  /** Longest time from Slack's confirmation to the mark-sent write, in ms: the double-post window. */
  maxMarkSentMs: number;
  /** True when shutdown stopped this flush before everything was tried. */
  stopped: boolean;
}

function emptyReport(): FlushReport {
  return {
    sent: 0,
    pending: 0,
    rateLimited: 0,
    retryableFailures: 0,
    permanentFailures: 0,
    possibleDuplicates: 0,
    blockedChannels: {},
    maxMarkSentMs: 0,
    stopped: false,
  };
}

type Outcome = "sent" | "stop-channel";
type Confirmed = { posted: PostedMessage; confirmedAt: number; threaded: boolean };

/**
 * Drains the outbox into Slack: channels in parallel, each in order and paced; a 429 pauses only
 * its channel; retryable errors back off; permanent errors are logged once with the fix, counted,
 * and leave the channel's entries in the outbox until the configuration is fixed.
 */
export class OutboxSender<P = unknown> {
  private readonly retry: RetryPolicy;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly loggedProblems = new Set<string>();
  /** Channels refused for good (until fixed): cleared by the channel's next post that goes through. */
  private readonly refusedChannels = new Set<string>();
  private readonly dmChannels = new Map<string, string>();
  private running: Promise<FlushReport> | undefined;
  /** Posts between their call to Slack and their mark-sent commit (`postsSettled`). */
  private readonly inFlight = new Set<Promise<unknown>>();
  private rerun: Promise<FlushReport> | undefined;
  /** Totals since start, for metrics. */
  readonly totals = { sent: 0, permanentFailures: 0, retryableFailures: 0, rateLimited: 0, possibleDuplicates: 0 };

  constructor(private readonly options: OutboxSenderOptions<P>) {
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? sleepUnlessAborted;
  }

  private get stopping(): boolean {
    return this.options.signal?.aborted === true;
  }

  /**
   * Delivers what is waiting, or only the entries named in `only`. Concurrent calls coalesce: at
   * most one flush runs, one more follows; a flush of named entries waits its turn.
   */
  flush(only?: ReadonlySet<string>): Promise<FlushReport> {
    if (!this.running) {
      this.running = this.flushOnce(only).finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    if (only) {
      return this.running.catch(() => undefined).then(() => this.flush(only));
    }
    this.rerun ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.rerun = undefined;
        return this.flush();
      });
    return this.rerun;
  }

  private async flushOnce(only: ReadonlySet<string> | undefined): Promise<FlushReport> {
    const report = emptyReport();
    if (this.stopping) {
      report.stopped = true;
      report.pending = await this.options.outbox.size();
      return report;
    }
    const byChannel = new Map<string, WaitingMessage[]>();
    for (const message of await this.options.outbox.waiting()) {
      if (only && !only.has(message.id)) continue;
      const list = byChannel.get(message.channel) ?? [];
      list.push(message);
      byChannel.set(message.channel, list);
    }
    if (!only) {
      for (const [channel, messages] of byChannel) byChannel.set(channel, await this.coalesced(channel, messages));
    }
    await Promise.all([...byChannel].map(([channel, messages]) => this.drainChannel(channel, messages, report)));
    report.stopped = this.stopping;
    report.pending = await this.options.outbox.size();
    return report;
  }

  /** The channel's messages with its backlog of single alerts replaced by what `coalesce` makes of it. */
  private async coalesced(channel: string, waiting: WaitingMessage[]): Promise<WaitingMessage[]> {
    const { outbox, coalesce } = this.options;
    const now = this.now();
    const messages = await outbox.finishReplacements(waiting, now);
    const singles = messages.filter((m) => m.kind === "alert" && m.postingSince === undefined);
    // Counted first: the bodies of a backlog are read only when it may become a digest.
    if (!coalesce?.considers(singles.length)) return messages;
    const drafts = await outbox.load(singles);
    const made = coalesce.digest(channel, drafts);
    if (!made) return messages;
    const replaces = drafts.map((e) => e.id);
    await outbox.replace(
      drafts,
      made.map((draft) => ({ ...draft, replaces })),
      now,
    );
    this.options.logger.info(
      { channel, alerts: drafts.length, messages: made.length },
      "a backlog of single alerts for this channel goes out as a digest",
    );
    return (await outbox.waiting()).filter((m) => m.channel === channel);
  }

  /** Posts the channel's messages in order, reading their bodies a batch at a time. */
  private async drainChannel(channel: string, messages: readonly WaitingMessage[], report: FlushReport): Promise<void> {
    // Still inside a long Retry-After from an earlier flush: leave this channel, do not hold the pass.
    if (this.options.pacer.delayFor(channel) > (this.options.maxRateLimitWaitMs ?? 60_000)) return;
    for (let start = 0; start < messages.length; start += BODY_BATCH) {
      if (this.stopping) return;
      const entries = await this.options.outbox.load(messages.slice(start, start + BODY_BATCH));
      for (const entry of entries) {
        if (this.stopping) return;
        if (entry.postingSince !== undefined) {
          report.possibleDuplicates += 1;
          this.totals.possibleDuplicates += 1;
          this.options.logger.warn(
            { channel, outboxId: entry.id, alerts: entry.alertKeys.length, alertKeys: entry.alertKeys.slice(0, 5) },
            "an alert was being posted when the previous run stopped; posting it again (it may appear twice)",
          );
        }
        if ((await this.deliver(channel, entry, report)) === "stop-channel") return;
      }
    }
  }

  /**
   * Posts one entry, with its retries: paced, then marked posting (committed before the post, so
   * that a crash after it announces the possible double), posted, then marked sent.
   */
  private async deliver(channel: string, initial: OutboxEntry<P>, report: FlushReport): Promise<Outcome> {
    let entry = initial;
    for (let attempt = 1; ; attempt += 1) {
      if (!(await this.options.pacer.take(channel, this.options.signal))) return "stop-channel";
      entry = await this.options.outbox.markPosting(entry, this.now());
      const attempted = this.postThenSettle(channel, entry, report);
      this.inFlight.add(attempted);
      let outcome: Awaited<typeof attempted>;
      try {
        outcome = await attempted;
      } finally {
        this.inFlight.delete(attempted);
      }
      if (outcome.ok) return "sent";
      const { failure } = outcome;
      entry = await this.options.outbox.markFailed(entry, failure.code);
      if (failure.kind === "permanent") {
        report.permanentFailures += 1;
        this.totals.permanentFailures += 1;
        return this.onPermanent(channel, entry, failure, report);
      }
      if (failure.kind === "rate-limited") {
        report.rateLimited += 1;
        this.totals.rateLimited += 1;
        this.options.pacer.pause(channel, failure.retryAfterMs);
        this.options.logger.info({ channel, retryAfterMs: failure.retryAfterMs }, "Slack rate-limited this channel");
        if (failure.retryAfterMs > (this.options.maxRateLimitWaitMs ?? 60_000)) return "stop-channel";
        continue;
      }
      report.retryableFailures += 1;
      this.totals.retryableFailures += 1;
      if (attempt >= this.retry.attemptsPerFlush) {
        this.logOnce(
          channel,
          failure.code,
          "warn",
          { channel, code: failure.code, detail: failure.detail },
          "Slack is failing; alerts stay in the outbox and are retried on the next pass",
        );
        return "stop-channel";
      }
      const backoff = Math.min(this.retry.maxMs, this.retry.baseMs * 2 ** (attempt - 1));
      await this.sleep(backoff * (0.8 + Math.random() * 0.4), this.options.signal);
      if (this.stopping) return "stop-channel";
    }
  }

  /** One post and, once Slack confirms it, its mark-sent; a failed post is returned with its failure classified. */
  private async postThenSettle(
    channel: string,
    entry: OutboxEntry<P>,
    report: FlushReport,
  ): Promise<{ ok: true } | { ok: false; failure: SlackFailure }> {
    let confirmed: Confirmed;
    try {
      confirmed = await this.post(entry);
    } catch (error) {
      return { ok: false, failure: classifySlackError(error) };
    }
    // Outside the try: a failure after Slack confirmed must never cause a second post in this run.
    await this.settle(channel, entry, confirmed, report);
    return { ok: true };
  }

  /**
   * Resolves once every post already handed to Slack has its mark-sent written (with the record of
   * its buttons), or has failed: a press arriving while its message is in that window waits for it.
   */
  async postsSettled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private async onPermanent(
    channel: string,
    entry: OutboxEntry<P>,
    failure: Extract<SlackFailure, { kind: "permanent" }>,
    report: FlushReport,
  ): Promise<Outcome> {
    if (entry.kind === "dm" && (failure.code === "users_not_found" || failure.code === "user_not_found")) {
      // A manager without a Slack account will not get one by retrying: drop the DM, keep the channel going.
      this.logOnce(
        channel,
        failure.code,
        "warn",
        { managerEmail: entry.managerEmail, fix: failure.fix },
        "manager DM skipped",
      );
      await this.options.outbox.discard(entry);
      return "sent";
    }
    report.blockedChannels[channel] = failure.code;
    const fix = channelAccessFix(failure.code, channel) ?? failure.fix;
    this.logOnce(
      channel,
      failure.code,
      "error",
      { channel, code: failure.code, fix },
      `Slack refused alerts for ${channel} (${failure.code}); they stay in the outbox until this is fixed: ${fix}`,
    );
    this.refusedChannels.add(channel);
    this.options.events?.emit("channel-problem", { channel, problem: { code: failure.code, fix } });
    return "stop-channel";
  }

  private logOnce(channel: string, code: string, level: "warn" | "error", fields: object, message: string): void {
    const key = `${channel}|${code}`;
    if (this.loggedProblems.has(key)) {
      this.options.logger.debug(fields, message);
      return;
    }
    this.loggedProblems.add(key);
    this.options.logger[level](fields, message);
  }

  private async post(entry: OutboxEntry<P>): Promise<Confirmed> {
    const { poster, threads } = this.options;
    const target = entry.kind === "dm" ? await this.dmChannel(entry) : entry.channel;
    const thread =
      entry.kind === "alert" && entry.threadKey ? await threads.get(entry.channel, entry.threadKey) : undefined;
    const posted = await poster.postMessage({
      channel: target,
      text: entry.message.text,
      blocks: entry.message.blocks,
      threadTs: thread?.ts,
    });
    return { posted, confirmedAt: performance.now(), threaded: thread !== undefined };
  }

  /** Mark-sent, with a new thread root and the message's record, in one commit. */
  private async settle(
    channel: string,
    entry: OutboxEntry<P>,
    confirmed: Confirmed,
    report: FlushReport,
  ): Promise<void> {
    const { threads, outbox } = this.options;
    const { posted, confirmedAt } = confirmed;
    await this.options.afterPost?.(entry);
    const newRoot = entry.kind === "alert" && entry.threadKey !== undefined && !confirmed.threaded;
    const threadKey = entry.threadKey ?? "";
    const ref = { channel: posted.channel, ts: posted.ts };
    const root = newRoot ? threads.rootPut(entry.channel, threadKey, ref) : undefined;
    await outbox.markSent(entry, [
      ...(root ? [root] : []),
      ...(entry.postedRecord === undefined ? [] : [postedRecordPut(posted, entry.postedRecord)]),
    ]);
    if (root) threads.noteRoot(entry.channel, threadKey, ref);
    report.maxMarkSentMs = Math.max(report.maxMarkSentMs, performance.now() - confirmedAt);
    report.sent += 1;
    this.totals.sent += 1;
    for (const key of [...this.loggedProblems])
      if (key.startsWith(`${entry.channel}|`)) this.loggedProblems.delete(key);
    if (this.refusedChannels.delete(channel))
      this.options.events?.emit("channel-problem", { channel, problem: undefined });
  }

  private async dmChannel(entry: OutboxEntry<P>): Promise<string> {
    const email = entry.managerEmail?.toLowerCase() ?? "";
    const cached = this.dmChannels.get(email);
    if (cached) return cached;
    const userId = await this.options.poster.lookupUserByEmail(email);
    const channel = await this.options.poster.openDirectMessage(userId);
    this.dmChannels.set(email, channel);
    return channel;
  }
}
