import { hostname } from "node:os";
import pg from "pg";
import { FencedOutError, StoreError } from "../errors.js";
import type { Logger } from "../logger.js";
import { ADVISORY_CLASS, ensurePgSchema, LEADER_LOCK, STORE_TABLES } from "./postgres-schema.js";
import { postgresUrlPassword, redactedPostgresUrl } from "./postgres-url.js";
import type {
  DurableQueue,
  Fence,
  KeySet,
  KeyValueNamespace,
  LeaderElection,
  LeaderElectionOptions,
  LeaderTerm,
  QueuedHead,
  QueuedItem,
  StateStore,
  StoreScope,
  SweepReport,
} from "./store-types.js";

export { isPostgresUrl, postgresUrlPassword, redactedPostgresUrl } from "./postgres-url.js";

/**
 * Settings of every session: the server notices a replica that vanished from the network within
 * about 11 s (keepalives) and drops its session (and with it the leader lock), and rolls back a
 * transaction whose client went silent. A statement still running when its client died (waiting
 * on a lock, or slow) is checked every second: until it ends, the dead leader's fenced
 * transaction holds the epoch row and the next leader's term cannot begin (a 2 s check made
 * such takeovers after a crash take 1.7 s longer, measured; 1 s halves that).
 */
const SESSION_OPTIONS = [
  "tcp_keepalives_idle=5",
  "tcp_keepalives_interval=2",
  "tcp_keepalives_count=3",
  "tcp_user_timeout=10000",
  "idle_in_transaction_session_timeout=15000",
  "client_connection_check_interval=1000",
]
  .map((setting) => `-c ${setting}`)
  .join(" ");

type Sql = (text: string, params?: unknown[]) => Promise<pg.QueryResult>;
/** How a handle runs an operation; `write` operations are the ones a fenced view checks. */
type Runner = <T>(action: string, write: boolean, work: (sql: Sql) => Promise<T>) => Promise<T>;

function storeFailure(action: string, location: string, error: unknown): Error {
  if (error instanceof StoreError || error instanceof FencedOutError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new StoreError(
    `State store ${location}: ${action} failed: ${detail}. Check that Postgres is reachable and the role may read and write the retention-sync tables.`,
    { cause: error },
  );
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Ends a session at once, even one whose socket stopped answering (end() would wait for it). */
function destroySession(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  client.end().catch(() => undefined);
}

const parseValue = <T>(text: string): T | undefined => (JSON.parse(text) as T | null) ?? undefined;

class PgNamespace implements KeyValueNamespace {
  constructor(
    private readonly name: string,
    private readonly run: Runner,
  ) {}

  get<T>(key: string): Promise<T | undefined> {
    return this.run(`read of ${this.name}`, false, async (sql) => {
      const { rows } = await sql(
        "SELECT value FROM rs_kv WHERE namespace = $1 AND key = $2 AND (expires IS NULL OR expires > $3)",
        [this.name, key, Date.now()],
      );
      const row = rows[0] as { value: string } | undefined;
      return row ? parseValue<T>(row.value) : undefined;
    });
  }

  set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
    const expires = ttlMs !== undefined && ttlMs > 0 ? Math.round(Date.now() + ttlMs) : null;
    return this.run(`write of ${this.name}`, true, async (sql) => {
      await sql(
        `INSERT INTO rs_kv (namespace, key, value, expires) VALUES ($1, $2, $3, $4)
         ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
        [this.name, key, JSON.stringify(value ?? null), expires],
      );
    });
  }

  getMany<T>(keys: readonly string[]): Promise<Map<string, T>> {
    if (keys.length === 0) return Promise.resolve(new Map());
    return this.run(`read of ${this.name}`, false, async (sql) => {
      const { rows } = await sql(
        "SELECT key, value FROM rs_kv WHERE namespace = $1 AND key = ANY($2::text[]) AND (expires IS NULL OR expires > $3)",
        [this.name, [...new Set(keys)], Date.now()],
      );
      const out = new Map<string, T>();
      for (const row of rows as Array<{ key: string; value: string }>) {
        const value = parseValue<T>(row.value);
        if (value !== undefined) out.set(row.key, value);
      }
      return out;
    });
  }

  setMany<T>(entries: ReadonlyArray<readonly [string, T]>, ttlMs?: number): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    const expires = ttlMs !== undefined && ttlMs > 0 ? Math.round(Date.now() + ttlMs) : null;
    // One row per key (the last value of a key given twice), sorted: two writers lock in one order.
    const latest = new Map(entries.map(([key, value]) => [key, JSON.stringify(value ?? null)]));
    const keys = [...latest.keys()].sort();
    return this.run(`write of ${this.name}`, true, async (sql) => {
      await sql(
        `INSERT INTO rs_kv (namespace, key, value, expires)
         SELECT $1, k, v, $4 FROM unnest($2::text[], $3::text[]) AS t(k, v)
         ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
        [this.name, keys, keys.map((key) => latest.get(key)), expires],
      );
    });
  }

  delete(key: string): Promise<boolean> {
    return this.run(`delete in ${this.name}`, true, async (sql) => {
      const result = await sql("DELETE FROM rs_kv WHERE namespace = $1 AND key = $2", [this.name, key]);
      return (result.rowCount ?? 0) > 0;
    });
  }

  entries<T>(): Promise<Array<[string, T]>> {
    return this.run(`listing of ${this.name}`, false, async (sql) => {
      const { rows } = await sql(
        "SELECT key, value FROM rs_kv WHERE namespace = $1 AND (expires IS NULL OR expires > $2) ORDER BY key",
        [this.name, Date.now()],
      );
      const out: Array<[string, T]> = [];
      for (const row of rows as Array<{ key: string; value: string }>) {
        const value = parseValue<T>(row.value);
        if (value !== undefined) out.push([row.key, value]);
      }
      return out;
    });
  }

  clear(): Promise<void> {
    return this.run(`clear of ${this.name}`, true, async (sql) => {
      await sql("DELETE FROM rs_kv WHERE namespace = $1", [this.name]);
    });
  }
}

class PgQueue<T, H> implements DurableQueue<T, H> {
  constructor(
    private readonly name: string,
    private readonly run: Runner,
  ) {}

  enqueue(items: ReadonlyArray<{ readonly id: string; readonly value: T; readonly head?: H }>): Promise<number> {
    if (items.length === 0) return Promise.resolve(0);
    return this.run(`enqueue in ${this.name}`, true, async (sql) => {
      // One statement for the batch, in order; ids already waiting or acked are ignored.
      const result = await sql(
        `INSERT INTO rs_queue_items (queue, id, value, head)
         SELECT $1, t.id, t.value, t.head
         FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS t(id, value, head, n) ORDER BY t.n
         ON CONFLICT (queue, id) DO NOTHING`,
        [
          this.name,
          items.map((item) => item.id),
          items.map((item) => JSON.stringify(item.value)),
          items.map((item) => (item.head === undefined ? null : JSON.stringify(item.head))),
        ],
      );
      return result.rowCount ?? 0;
    });
  }

  pending(limit?: number): Promise<Array<QueuedItem<T>>> {
    return this.run(`scan of ${this.name}`, false, async (sql) => {
      const { rows } = await sql(
        "SELECT id, seq, value FROM rs_queue_items WHERE queue = $1 AND value IS NOT NULL ORDER BY seq LIMIT $2",
        [this.name, limit !== undefined && limit >= 0 ? limit : null],
      );
      return (rows as Array<{ id: string; seq: string; value: string }>).map((row) => ({
        id: row.id,
        seq: Number(row.seq),
        value: JSON.parse(row.value) as T,
      }));
    });
  }

  heads(limit?: number): Promise<Array<QueuedHead<H>>> {
    return this.run(`scan of ${this.name}`, false, async (sql) => {
      const { rows } = await sql(
        "SELECT id, seq, head FROM rs_queue_items WHERE queue = $1 AND value IS NOT NULL ORDER BY seq LIMIT $2",
        [this.name, limit !== undefined && limit >= 0 ? limit : null],
      );
      return (rows as Array<{ id: string; seq: string; head: string | null }>).map((row) => ({
        id: row.id,
        seq: Number(row.seq),
        head: row.head === null ? undefined : (JSON.parse(row.head) as H),
      }));
    });
  }

  values(ids: readonly string[]): Promise<Map<string, T>> {
    if (ids.length === 0) return Promise.resolve(new Map());
    return this.run(`read of ${this.name}`, false, async (sql) => {
      const { rows } = await sql(
        "SELECT id, value FROM rs_queue_items WHERE queue = $1 AND id = ANY($2::text[]) AND value IS NOT NULL",
        [this.name, [...new Set(ids)]],
      );
      return new Map((rows as Array<{ id: string; value: string }>).map((row) => [row.id, JSON.parse(row.value) as T]));
    });
  }

  countPending(): Promise<number> {
    return this.run(`count of ${this.name}`, false, async (sql) => {
      const { rows } = await sql(
        "SELECT count(*)::int AS n FROM rs_queue_items WHERE queue = $1 AND value IS NOT NULL",
        [this.name],
      );
      return (rows[0] as { n: number } | undefined)?.n ?? 0;
    });
  }

  setHead(id: string, head: H): Promise<boolean> {
    return this.run(`update in ${this.name}`, true, async (sql) => {
      const result = await sql(
        "UPDATE rs_queue_items SET head = $1 WHERE queue = $2 AND id = $3 AND value IS NOT NULL",
        [JSON.stringify(head), this.name, id],
      );
      return (result.rowCount ?? 0) > 0;
    });
  }

  ack(ids: readonly string[], expiresAtMs: number): Promise<void> {
    if (ids.length === 0) return Promise.resolve();
    return this.run(`ack in ${this.name}`, true, async (sql) => {
      await sql("UPDATE rs_queue_items SET value = NULL, expires = $1 WHERE queue = $2 AND id = ANY($3::text[])", [
        Math.round(expiresAtMs),
        this.name,
        [...new Set(ids)].sort(),
      ]);
    });
  }
}

class PgKeySet implements KeySet {
  constructor(
    private readonly name: string,
    private readonly run: Runner,
  ) {}

  has(keys: readonly string[], nowMs: number): Promise<Set<string>> {
    if (keys.length === 0) return Promise.resolve(new Set());
    return this.run(`read of ${this.name}`, false, async (sql) => {
      const { rows } = await sql(
        "SELECT key FROM rs_key_sets WHERE name = $1 AND expires > $2 AND key = ANY($3::text[])",
        [this.name, Math.round(nowMs), [...new Set(keys)]],
      );
      return new Set((rows as Array<{ key: string }>).map((row) => row.key));
    });
  }

  add(keys: readonly string[], expiresAtMs: number): Promise<void> {
    if (keys.length === 0) return Promise.resolve();
    return this.run(`write of ${this.name}`, true, async (sql) => {
      // Sorted, so that two writers lock shared keys in the same order (no deadlock).
      await sql(
        `INSERT INTO rs_key_sets (name, key, expires) SELECT $1, k, $2 FROM unnest($3::text[]) AS k ORDER BY k
         ON CONFLICT (name, key) DO UPDATE SET expires = GREATEST(rs_key_sets.expires, excluded.expires)`,
        [this.name, Math.round(expiresAtMs), [...new Set(keys)].sort()],
      );
    });
  }
}

/** What the store, its fenced views and its election share: the pool and the sessions. */
class PgContext {
  private closed = false;
  private readonly sessions = new Set<pg.Client>();

  constructor(
    readonly pool: pg.Pool,
    readonly location: string,
    private readonly sessionConfig: pg.ClientConfig,
  ) {}

  /** A connection of its own, outside the pool (the leader lock lives as long as its session). */
  async openSession(): Promise<pg.Client> {
    if (this.closed) throw new StoreError(`State store ${this.location}: closed`);
    const client = new pg.Client(this.sessionConfig);
    // Errors also end the term (LeaderTerm listens); without a listener they would crash the process.
    client.on("error", () => undefined);
    client.once("end", () => this.sessions.delete(client));
    this.sessions.add(client);
    try {
      await client.connect();
    } catch (error) {
      this.sessions.delete(client);
      destroySession(client);
      throw error;
    }
    return client;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const session of this.sessions) destroySession(session);
    await this.pool.end();
  }
}

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

/** No operation of the store takes this long unless its connection stopped answering. */
const QUERY_TIMEOUT_MS = 60_000;
/** A ROLLBACK on a connection that stopped answering: the connection is dropped instead. */
const ROLLBACK_TIMEOUT_MS = 5_000;

const DEFAULT_ELECTION: Required<LeaderElectionOptions> = { heartbeatMs: 2_000, heartbeatTimeoutMs: 5_000 };
/** How long a new leader waits for the old leader's fenced transactions before giving the term up. */
const TAKEOVER_WAIT_MS = 30_000;

/**
 * Leader election with a session-level advisory lock on a dedicated connection. Winning it
 * increments the epoch in `rs_leadership` (waiting for fenced transactions of the previous leader
 * still open): the new term's fencing token.
 */
class PgElection implements LeaderElection {
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

/** The Postgres engine: one pool for the operations, a dedicated session for the leader lock. */
class PostgresStateStore implements StateStore {
  private readonly run: Runner;
  private readonly scope: StoreScope;

  constructor(
    private readonly ctx: PgContext,
    readonly election: PgElection,
    private readonly fence: Fence | undefined,
  ) {
    const pool: Sql = (text, params) => ctx.pool.query(text, params);
    this.run = async (action, write, work) => {
      if (write && fence) return this.inTransaction(action, (client) => work(client));
      try {
        return await work(pool);
      } catch (error) {
        throw storeFailure(action, ctx.location, error);
      }
    };
    this.scope = scopeWith(this.run);
  }

  get location(): string {
    return this.ctx.location;
  }

  namespace(name: string): KeyValueNamespace {
    return this.scope.namespace(name);
  }

  queue<T, H = never>(name: string): DurableQueue<T, H> {
    return this.scope.queue<T, H>(name);
  }

  keySet(name: string): KeySet {
    return this.scope.keySet(name);
  }

  fenced(fence: Fence): StateStore {
    return new PostgresStateStore(this.ctx, this.election, fence);
  }

  transaction<T>(work: (scope: StoreScope) => Promise<T>): Promise<T> {
    return this.inTransaction("a transaction", (sql) => {
      const direct: Runner = async (action, _write, step) => {
        try {
          return await step(sql);
        } catch (error) {
          throw storeFailure(action, this.ctx.location, error);
        }
      };
      return work(scopeWith(direct));
    });
  }

  /** BEGIN, the fence check (fenced views), the work, COMMIT; the work's own error goes back unchanged. */
  private async inTransaction<T>(action: string, work: (sql: Sql) => Promise<T>): Promise<T> {
    const { fence, ctx } = this;
    if (fence && fence.epoch === undefined) {
      const error = new FencedOutError(undefined, undefined);
      fence.fencedOut(error);
      throw error;
    }
    let client: pg.PoolClient;
    try {
      client = await ctx.pool.connect();
    } catch (error) {
      throw storeFailure(`starting ${action}`, ctx.location, error);
    }
    let broken = false;
    // A checked-out client emits connection errors as events too (its queries fail with them).
    const onError = () => {
      broken = true;
    };
    client.on("error", onError);
    const sql: Sql = (text, params) => client.query(text, params);
    try {
      try {
        await client.query("BEGIN");
        if (fence) await this.checkFence(client, fence);
      } catch (error) {
        if (!(error instanceof FencedOutError)) broken = true;
        await withTimeout(client.query("ROLLBACK"), ROLLBACK_TIMEOUT_MS, "rollback").catch(() => {
          broken = true;
        });
        throw storeFailure(`starting ${action}`, ctx.location, error);
      }
      let result: T;
      try {
        result = await work(sql);
      } catch (error) {
        // The work's own error (or a store operation's StoreError) goes to the caller unchanged.
        await withTimeout(client.query("ROLLBACK"), ROLLBACK_TIMEOUT_MS, "rollback").catch(() => {
          broken = true;
        });
        throw error;
      }
      try {
        await client.query("COMMIT");
      } catch (error) {
        broken = true;
        throw storeFailure(`committing ${action}`, ctx.location, error);
      }
      return result;
    } finally {
      client.off("error", onError);
      client.release(broken);
    }
  }

  /**
   * The fence: the epoch row read FOR SHARE in this transaction. A new leader's increment waits for
   * this transaction to end, so a write that passed here commits before the new term begins.
   */
  private async checkFence(client: pg.PoolClient, fence: Fence): Promise<void> {
    const epoch = fence.epoch;
    const { rows } = await client.query("SELECT epoch FROM rs_leadership WHERE id = 1 FOR SHARE");
    const found = (rows[0] as { epoch: string } | undefined)?.epoch;
    const current = found === undefined ? undefined : Number(found);
    if (epoch !== undefined && current === epoch) return;
    const error = new FencedOutError(epoch, current);
    fence.fencedOut(error);
    throw error;
  }

  sweep(nowMs: number): Promise<SweepReport> {
    const now = Math.round(nowMs);
    return this.run("the expiry sweep", false, async (sql) => {
      const size = async () => {
        const { rows } = await sql(
          "SELECT coalesce(sum(pg_total_relation_size(t::regclass)), 0)::bigint AS bytes FROM unnest($1::text[]) AS t",
          [[...STORE_TABLES]],
        );
        return Number((rows[0] as { bytes: string } | undefined)?.bytes ?? 0);
      };
      const before = await size();
      let expired = 0;
      expired += (await sql("DELETE FROM rs_key_sets WHERE expires <= $1", [now])).rowCount ?? 0;
      expired += (await sql("DELETE FROM rs_queue_items WHERE value IS NULL AND expires <= $1", [now])).rowCount ?? 0;
      expired += (await sql("DELETE FROM rs_kv WHERE expires <= $1", [now])).rowCount ?? 0;
      const after = await size();
      return { expired, reclaimedBytes: Math.max(0, before - after), fileBytes: after };
    });
  }

  async close(): Promise<void> {
    this.election.close();
    await this.ctx.close();
  }
}

function scopeWith(run: Runner): StoreScope {
  return {
    namespace: (name) => new PgNamespace(name, run),
    queue: <T, H = never>(name: string) => new PgQueue<T, H>(name, run),
    keySet: (name) => new PgKeySet(name, run),
  };
}

export interface PostgresStoreOptions {
  /** Used when the URL carries none (the daemon passes PGPASSWORD); never logged. */
  readonly password?: string | undefined;
  /** Connections of the operations' pool (default 5); the leader lock has one more of its own. */
  readonly poolSize?: number;
  /** Where broken idle connections are reported. */
  readonly logger?: Logger | undefined;
  /**
   * For readers that must change nothing (`status`): every session is read-only, the tables are
   * neither created nor checked, and no probe is written (`schema.from` is then -1: not looked at).
   */
  readonly readOnly?: boolean | undefined;
}

/**
 * Opens the Postgres state store at `url` (`postgres://user[:password]@host:port/db`), creating its
 * tables in a new database and refusing one written by a newer release.
 */
export async function openPostgresStateStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<{ store: StateStore; schema: { from: number } }> {
  const location = redactedPostgresUrl(url);
  let connectionString = url.trim();
  if (!postgresUrlPassword(connectionString) && options.password) {
    // pg lets a password-less URL override an explicit password, so the password goes into the URL.
    const withPassword = new URL(connectionString);
    withPassword.password = encodeURIComponent(options.password);
    connectionString = withPassword.toString();
  }
  const sessionConfig: pg.ClientConfig = {
    connectionString,
    // Read-only (`status`): the server itself refuses any write of this session.
    options: options.readOnly ? `${SESSION_OPTIONS} -c default_transaction_read_only=on` : SESSION_OPTIONS,
    application_name: "retention-sync",
    keepAlive: true,
    keepAliveInitialDelayMillis: 5_000,
    connectionTimeoutMillis: 10_000,
  };
  // Operations give up on a connection that stopped answering (a partition) instead of hanging.
  const pool = new pg.Pool({
    ...sessionConfig,
    max: options.poolSize ?? 5,
    idleTimeoutMillis: 30_000,
    query_timeout: QUERY_TIMEOUT_MS,
  });
  pool.on("error", (error) => {
    options.logger?.warn({ err: error, state: location }, "an idle state store connection failed; it is replaced");
  });
  const ctx = new PgContext(pool, location, sessionConfig);
  try {
    const store = new PostgresStateStore(ctx, new PgElection(ctx), undefined);
    if (options.readOnly) return { store, schema: { from: -1 } };
    const client = await pool.connect();
    let schema: { from: number };
    try {
      schema = await ensurePgSchema(client, location);
    } finally {
      client.release();
    }
    // A probe write proves the role may write before any job relies on it.
    await store.namespace("meta").set("openedAt", new Date().toISOString());
    return { store, schema };
  } catch (error) {
    await ctx.close().catch(() => undefined);
    throw storeFailure("opening", location, error);
  }
}
