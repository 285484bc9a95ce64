import pg from "pg";
import { FencedOutError, StoreError } from "../errors.js";

/**
 * Settings of every session: the server notices a replica that vanished from the network within
 * about 11 s (keepalives) and drops its session (and with it the leader lock), and rolls back a
 * transaction whose client went silent. A statement still running when its client died (waiting
 * on a lock, or slow) is checked every second: until it ends, the dead leader's fenced
 * transaction holds the epoch row and the next leader's term cannot begin (a 2 s check made
 * such takeovers after a crash take 1.7 s longer, measured; 1 s halves that).
 */
export const SESSION_OPTIONS = [
  "tcp_keepalives_idle=5",
  "tcp_keepalives_interval=2",
  "tcp_keepalives_count=3",
  "tcp_user_timeout=10000",
  "idle_in_transaction_session_timeout=15000",
  "client_connection_check_interval=1000",
]
  .map((setting) => `-c ${setting}`)
  .join(" ");

export type Sql = (text: string, params?: unknown[]) => Promise<pg.QueryResult>;
/** How a handle runs an operation; `write` operations are the ones a fenced view checks. */
export type Runner = <T>(action: string, write: boolean, work: (sql: Sql) => Promise<T>) => Promise<T>;

export function storeFailure(action: string, location: string, error: unknown): Error {
  if (error instanceof StoreError || error instanceof FencedOutError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new StoreError(
    `State store ${location}: ${action} failed: ${detail}. Check that Postgres is reachable and the role may read and write the retention-sync tables.`,
    { cause: error },
  );
}

export function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Ends a session at once, even one whose socket stopped answering (end() would wait for it). */
export function destroySession(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  client.end().catch(() => undefined);
}

export const parseValue = <T>(text: string): T | undefined => (JSON.parse(text) as T | null) ?? undefined;

/** What the store, its fenced views and its election share: the pool and the sessions. */
export class PgContext {
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

/** No operation of the store takes this long unless its connection stopped answering. */
export const QUERY_TIMEOUT_MS = 60_000;
/** A ROLLBACK on a connection that stopped answering: the connection is dropped instead. */
export const ROLLBACK_TIMEOUT_MS = 5_000;
