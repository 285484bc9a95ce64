import { hostname } from "node:os";
import type pg from "pg";
import { ADVISORY_CLASS, LEADER_LOCK } from "./postgres-schema.js";
import { destroySession, type PgContext, storeFailure, withTimeout } from "./postgres-session.js";
import type { LeaderElection, LeaderElectionOptions, LeaderTerm } from "./store-types.js";

class PgLeaderTerm implements LeaderTerm {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private beating = false;
  private released = false;

  constructor(
    private readonly session: pg.Client,
    readonly epoch: number,
    private readonly options: Required<LeaderElectionOptions>,
  ) {
    session.on("error", (error: Error) => this.lose(`the session holding the leader lock failed: ${error.message}`));
    session.on("end", () => this.lose("the session holding the leader lock ended"));
    this.timer = setInterval(() => void this.beat(), options.heartbeatMs);
    this.timer.unref();
  }

  get lost(): AbortSignal {
    return this.controller.signal;
  }

  private lose(reason: string): void {
    clearInterval(this.timer);
    if (this.released || this.controller.signal.aborted) return;
    this.controller.abort(reason);
    destroySession(this.session);
  }

  /** The session still answers, and no newer leader exists (it cannot, while the lock is held). */
  private async beat(): Promise<void> {
    if (this.beating || this.released) return;
    this.beating = true;
    try {
      const { rows } = await withTimeout(
        this.session.query("SELECT epoch FROM rs_leadership WHERE id = 1"),
        this.options.heartbeatTimeoutMs,
        "leader heartbeat",
      );
      const current = Number((rows[0] as { epoch: string } | undefined)?.epoch);
      if (current !== this.epoch) this.lose(`a newer leader holds epoch ${current}`);
    } catch (error) {
      this.lose(
        `the session holding the leader lock stopped answering (${error instanceof Error ? error.message : String(error)})`,
      );
    } finally {
      this.beating = false;
    }
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearInterval(this.timer);
    if (this.controller.signal.aborted) return;
    // Ending the session frees the lock; a standby takes over on its next try.
    await withTimeout(this.session.end(), 2_000, "ending the leader session").catch(() => destroySession(this.session));
  }
}

const DEFAULT_ELECTION: Required<LeaderElectionOptions> = { heartbeatMs: 2_000, heartbeatTimeoutMs: 5_000 };
/** How long a new leader waits for the old leader's fenced transactions before giving the term up. */
const TAKEOVER_WAIT_MS = 30_000;

/**
 * Leader election with a session-level advisory lock on a dedicated connection. Winning it
 * increments the epoch in `rs_leadership` (waiting for fenced transactions of the previous leader
 * still open): the new term's fencing token.
 */
export class PgElection implements LeaderElection {
  private standby: pg.Client | undefined;
  private readonly holder = `${hostname()}/${process.pid}`;

  constructor(private readonly ctx: PgContext) {}

  async tryAcquire(options: LeaderElectionOptions = {}): Promise<LeaderTerm | undefined> {
    const settings = { ...DEFAULT_ELECTION, ...options };
    let session = this.standby;
    try {
      if (!session) {
        session = await withTimeout(this.ctx.openSession(), settings.heartbeatTimeoutMs * 2, "connecting");
        const opened = session;
        opened.once("error", () => {
          if (this.standby === opened) this.standby = undefined;
        });
        this.standby = session;
      }
      const { rows } = await withTimeout(
        session.query("SELECT pg_try_advisory_lock($1, $2) AS won", [ADVISORY_CLASS, LEADER_LOCK]),
        settings.heartbeatTimeoutMs,
        "trying the leader lock",
      );
      if ((rows[0] as { won: boolean } | undefined)?.won !== true) return undefined;
      this.standby = undefined;
      const bumped = await withTimeout(
        session.query(
          `INSERT INTO rs_leadership (id, epoch, holder, since) VALUES (1, 1, $1, now())
           ON CONFLICT (id) DO UPDATE SET epoch = rs_leadership.epoch + 1, holder = excluded.holder, since = excluded.since
           RETURNING epoch`,
          [this.holder],
        ),
        TAKEOVER_WAIT_MS,
        "starting a leadership epoch",
      );
      const epoch = Number((bumped.rows[0] as { epoch: string } | undefined)?.epoch);
      return new PgLeaderTerm(session, epoch, settings);
    } catch (error) {
      if (session) destroySession(session);
      this.standby = undefined;
      throw storeFailure("the leader election", this.ctx.location, error);
    }
  }

  close(): void {
    if (this.standby) destroySession(this.standby);
    this.standby = undefined;
  }
}
