import pg from "pg";
import { FencedOutError } from "../errors.js";
import type { Logger } from "../logger.js";
import { PgElection } from "./postgres-election.js";
import { PgNamespace } from "./postgres-namespace.js";
import { PgKeySet, PgQueue } from "./postgres-queue.js";
import { ensurePgSchema, STORE_TABLES } from "./postgres-schema.js";
import {
  PgContext,
  QUERY_TIMEOUT_MS,
  ROLLBACK_TIMEOUT_MS,
  type Runner,
  SESSION_OPTIONS,
  type Sql,
  storeFailure,
  withTimeout,
} from "./postgres-session.js";
import { postgresUrlPassword, redactedPostgresUrl } from "./postgres-url.js";
import { ScopeDelegate } from "./scope-delegate.js";
import type { Fence, StateStore, StoreScope, SweepReport } from "./store-types.js";

export { isPostgresUrl, postgresUrlPassword, redactedPostgresUrl } from "./postgres-url.js";

/** The Postgres engine: one pool for the operations, a dedicated session for the leader lock. */
class PostgresStateStore extends ScopeDelegate implements StateStore {
  private readonly run: Runner;
  protected readonly scope: StoreScope;

  constructor(
    private readonly ctx: PgContext,
    readonly election: PgElection,
    private readonly fence: Fence | undefined,
  ) {
    super();
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
    // Read-only (`status`): the server itself refuses any write on this connection.
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
