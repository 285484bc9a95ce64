import sqlite3 from "sqlite3";
import type { Query } from "./sqlite-schema.js";

/** Statements kept prepared: the store's own, a few dozen fixed texts. */
const MAX_CACHED_STATEMENTS = 200;

/** Statements worth keeping prepared (not PRAGMAs, DDL or one-off maintenance). */
const CACHEABLE = /^\s*(SELECT|INSERT|UPDATE|DELETE|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i;

export interface SqliteConnection {
  readonly query: Query;
  close(): Promise<void>;
}

/**
 * The store's one connection to the database file, with its statements kept prepared: the
 * sqlite3 binding's `Database#all` prepares, runs and finalizes a statement per call, three trips
 * to its thread pool where a prepared statement makes one.
 */
export async function openSqliteConnection(
  file: string,
  busyTimeoutMs: number,
  options: { readonly readOnly?: boolean; readonly uri?: boolean } = {},
): Promise<SqliteConnection> {
  const mode =
    (options.readOnly ? sqlite3.OPEN_READONLY : sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE) |
    (options.uri ? sqlite3.OPEN_URI : 0);
  const db = await new Promise<sqlite3.Database>((resolveOpen, reject) => {
    const opened: sqlite3.Database = new sqlite3.Database(file, mode, (error) =>
      error ? reject(error) : resolveOpen(opened),
    );
  });
  db.configure("busyTimeout", busyTimeoutMs);
  const prepared = new Map<string, sqlite3.Statement>();

  const prepare = (sql: string) =>
    new Promise<sqlite3.Statement>((resolvePrepared, reject) => {
      const statement: sqlite3.Statement = db.prepare(sql, (error) =>
        error ? reject(error) : resolvePrepared(statement),
      );
    });

  const query: Query = async (sql, ...params) => {
    let statement = prepared.get(sql);
    if (!statement) {
      if (!CACHEABLE.test(sql) || prepared.size >= MAX_CACHED_STATEMENTS) {
        return new Promise<unknown[]>((resolveRows, reject) =>
          db.all(sql, params, (error, rows) => (error ? reject(error) : resolveRows(rows))),
        );
      }
      statement = await prepare(sql);
      prepared.set(sql, statement);
    }
    const ready = statement;
    return new Promise<unknown[]>((resolveRows, reject) =>
      ready.all(params, (error, rows) => (error ? reject(error) : resolveRows(rows))),
    );
  };

  const close = async () => {
    await Promise.all(
      [...prepared.values()].map(
        (statement) => new Promise<void>((resolveDone) => statement.finalize(() => resolveDone())),
      ),
    );
    prepared.clear();
    await new Promise<void>((resolveClosed, reject) => db.close((error) => (error ? reject(error) : resolveClosed())));
  };
  return { query, close };
}
