import { statSync } from "node:fs";
import type { Config } from "../config/schema.js";
import type { Logger } from "../logger.js";
import type { KeptExport } from "../roster/sources/last-pull.js";
import type { HrisLookup } from "./enrich.js";

/** A repeating timer: calls `tick` every `ms` until the returned function stops it. Tests drive their own. */
export type Every = (ms: number, tick: () => Promise<void>) => () => void;

/** The real one: a timer that does not keep the process alive. */
export const everyInterval: Every = (ms, tick) => {
  const timer = setInterval(() => void tick(), ms);
  timer.unref();
  return () => clearInterval(timer);
};

/** How often the leader looks whether the export changed (a stat, no read): HR fields follow within this. */
export const HRIS_WATCH_MS = 30_000;

/** What identifies a version of the export without reading it: changed by any rewrite or replacement. */
function fileVersion(path: string): string | undefined {
  try {
    const stat = statSync(path);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return undefined;
  }
}

/**
 * The HR fields of alert cards (department, title, manager, employee id), from the HRIS export
 * (`roster.file`, or the last complete pull when `roster.source` pulls it): read again whenever the
 * file changed, by every poll pass and, while leading, by a watch every
 * `HRIS_WATCH_MS` (webhook mode polls only every `backstopPollInterval`). A new version replaces
 * the lookup only once read in full, unchanged while it was read; a version that cannot be read
 * keeps the last good lookup, with one warning per version.
 */
export class HrisSource {
  private lookup: HrisLookup | undefined;
  /** The version behind `lookup`, or the last one that could not be read: neither is read again. */
  private seen: string | undefined;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly roster: Config["roster"],
    private readonly logger: Logger,
    /** Where the last complete pull is, when the roster is pulled (`lastPulledExport`); else `roster.file` is read. */
    private readonly pulled?: () => Promise<KeptExport | undefined>,
  ) {}

  /** The lookup of the last export read in full (undefined before the first, or without a roster file). */
  get current(): HrisLookup | undefined {
    return this.lookup;
  }

  /** Reads the export again if it changed since the last read; never throws. Concurrent calls share one read. */
  refresh(now: Date): Promise<void> {
    this.reading ??= this.readIfChanged(now).finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  /** A leader service: refreshes at the start of each term, then every `everyMs`, until stopped. */
  watch(
    every: Every = everyInterval,
    everyMs = HRIS_WATCH_MS,
  ): { name: string; start(): Promise<void>; stop(): Promise<void> } {
    let stop: (() => void) | undefined;
    return {
      name: "hris-watch",
      start: async () => {
        stop?.();
        stop = every(everyMs, () => this.refresh(new Date()));
        await this.refresh(new Date());
      },
      stop: async () => {
        stop?.();
        stop = undefined;
      },
    };
  }

  private async readIfChanged(now: Date): Promise<void> {
    if (!this.roster.enabled) return;
    const kept = this.pulled ? await this.pulled() : undefined;
    const file = this.pulled ? kept?.file : this.roster.file;
    if (!file) return;
    const version = fileVersion(file) ?? "missing";
    if (version === this.seen) return;
    const before = this.lookup;
    try {
      // The roster readers and presets load with the first export read, not with the daemon.
      const { loadHrisLookup } = await import("./hris-lookup.js");
      const lookup = await loadHrisLookup(this.roster, now, kept);
      // Changed while it was read: maybe half written. Read again next time; keep the old one meanwhile.
      if ((fileVersion(file) ?? "missing") !== version) return;
      this.lookup = lookup;
      this.seen = version;
      if (before) this.logger.info({ file }, "HRIS export changed: alerts now show its HR fields");
    } catch (error) {
      this.seen = version;
      this.logger.warn(
        { err: error, file },
        before
          ? "HRIS export unreadable: alerts keep the HR fields of the last export read; fix or replace the file"
          : "HRIS export unreadable: alerts go out without HR fields until the file is fixed or replaced",
      );
    }
  }
}
