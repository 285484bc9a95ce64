/**
 * Why an HTTP server refused a request (the `reason` label of `retention_sync_requests_refused_total`).
 * A fixed list: the label's values stay few whatever a client sends.
 */
export type RefusalReason =
  | "bad_signature"
  | "stale_timestamp"
  | "too_large"
  | "wrong_path"
  | "wrong_method"
  | "slow_client"
  | "bad_request"
  | "too_many_connections";

/** One refused request as it may appear in a log line: the reason and a few facts about the request. */
export interface RefusalSample {
  readonly reason: RefusalReason;
  readonly method?: string | undefined;
  readonly path?: string | undefined;
  readonly remoteAddress?: string | undefined;
  readonly detail?: string | undefined;
}

/** What to log: the first refusal of a window on its own, or the count of those that followed it. */
export interface RefusalLine {
  readonly kind: "first" | "summary";
  readonly refused: number;
  readonly byReason: Readonly<Partial<Record<RefusalReason, number>>>;
  /** The first refusal the line counts. */
  readonly sample: RefusalSample;
}

interface Counted {
  refused: number;
  byReason: Partial<Record<RefusalReason, number>>;
  readonly sample: RefusalSample;
}

/**
 * Turns refused requests into few log lines, whatever their rate: the first refusal of a window
 * is logged at once (an operator sees an attack or a misconfigured sender start), the ones after
 * it are only counted, and their count (by reason, with a sample) is logged once the window is
 * over. A flood of forged requests costs at most two lines per window. Pure: the caller owns the
 * clock and the timer that asks for `due()`.
 */
export class RefusalTally {
  private endsAt: number | undefined;
  private counted: Counted | undefined;

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** When the open window ends (epoch ms), for the caller's timer; undefined while none is open. */
  get windowEndsAt(): number | undefined {
    return this.endsAt;
  }

  /** Records one refusal; returns the lines to log now (a window that ended first gives its summary). */
  add(sample: RefusalSample): RefusalLine[] {
    const lines = this.due();
    if (this.endsAt === undefined) {
      this.endsAt = this.now() + this.windowMs;
      return [...lines, { kind: "first", refused: 1, byReason: { [sample.reason]: 1 }, sample }];
    }
    this.counted ??= { refused: 0, byReason: {}, sample };
    this.counted.refused += 1;
    this.counted.byReason[sample.reason] = (this.counted.byReason[sample.reason] ?? 0) + 1;
    return lines;
  }

  /** Once the window is over: its summary (none when nothing followed its first line), and the window closes. */
  due(): RefusalLine[] {
    if (this.endsAt === undefined || this.now() < this.endsAt) return [];
    return this.drain();
  }

  /** Closes the window now, over or not (the server stops): the summary of what it counted, if anything. */
  drain(): RefusalLine[] {
    const counted = this.counted;
    this.endsAt = undefined;
    this.counted = undefined;
    return counted ? [{ kind: "summary", ...counted }] : [];
  }
}
