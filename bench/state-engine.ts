import { type EmbeddedPostgres, startEmbeddedPostgres } from "../test/helpers/embedded-postgres.js";
import { readTreeStats, treeDelta } from "./proc-stats.js";

/** Which state store a section measures: a SQLite file, or a database on the run's embedded Postgres. */
export type StateEngine = "sqlite" | "postgres";

export const STATE_ENGINES: readonly StateEngine[] = ["sqlite", "postgres"];

export const ENGINE_NAMES: Readonly<Record<StateEngine, string>> = { sqlite: "SQLite", postgres: "Postgres" };

/**
 * Server settings of the bench's Postgres: a durable server as one would run it, not the tests'
 * fast one (test/helpers/postgres-server.ts turns fsync and full-page writes off). These are
 * Postgres's own defaults, written out so the run records them; shared_buffers is the default
 * 128MB.
 */
const DURABLE_SETTINGS = {
  fsync: "on",
  synchronous_commit: "on",
  full_page_writes: "on",
  shared_buffers: "128MB",
  max_connections: "100",
};

/** Settings read back from the running server (`SHOW`), for the results and the report. */
const SHOWN = [
  "server_version",
  "fsync",
  "synchronous_commit",
  "full_page_writes",
  "wal_sync_method",
  "wal_level",
  "shared_buffers",
  "checkpoint_timeout",
  "max_wal_size",
] as const;

export interface PostgresInfo {
  /** `postgres --version` of the embedded-postgres binaries. */
  readonly version: string;
  readonly settings: Readonly<Record<string, string>>;
}

/** The state location a section hands to the store, the daemon or a child. */
export type StateTarget =
  | { readonly engine: "sqlite"; readonly file: string }
  | {
      readonly engine: "postgres";
      /** `postgres://postgres:<password>@127.0.0.1:<port>/<fresh database>`. */
      readonly url: string;
      readonly urlWithoutPassword: string;
      readonly password: string;
      /** The postmaster: the server's processes are its tree (proc-stats.ts `readTreeStats`). */
      readonly serverPid: number;
    };

export type PostgresTarget = StateTarget & { readonly engine: "postgres" };

/** After a Postgres section: the database's size, and what a CHECKPOINT then still had to write. */
export interface PostgresAfter {
  readonly databaseBytes: number;
  /** Bytes the server wrote (wchar) during a CHECKPOINT run at the end: data pages not yet written back. */
  readonly checkpointWriteBytes: number | undefined;
  /** The kernel's write_bytes over the same CHECKPOINT. */
  readonly checkpointKernelWriteBytes: number | undefined;
}

/** One embedded Postgres for a bench run (started on first use), a fresh database per section. */
export class BenchPostgres {
  private server: EmbeddedPostgres | undefined;
  private info: PostgresInfo | undefined;

  constructor(private readonly log: (line: string) => void) {}

  private async started(): Promise<EmbeddedPostgres> {
    if (this.server) return this.server;
    this.log("starting an embedded Postgres (fsync on, synchronous_commit on) for the Postgres sections");
    const server = await startEmbeddedPostgres({ settings: DURABLE_SETTINGS, folderPrefix: "rs-bench-postgres-" });
    this.server = server;
    const rows = await server.query<{ name: string; setting: string }>(
      "SELECT name, current_setting(name) AS setting FROM unnest($1::text[]) AS name",
      [SHOWN],
    );
    this.info = { version: server.version, settings: Object.fromEntries(rows.map((r) => [r.name, r.setting])) };
    return server;
  }

  /** A fresh, empty database for one section. */
  async target(section: string): Promise<PostgresTarget> {
    const server = await this.started();
    const database = `bench_${section.replace(/[^a-z0-9]/gi, "_")}_${Date.now().toString(36)}`;
    const url = await server.createDatabase(database);
    // CREATE DATABASE leaves the new database's copied pages dirty: written back now, so the
    // closing CHECKPOINT of `after` measures the section's own pages only.
    await server.query("CHECKPOINT");
    return {
      engine: "postgres",
      url,
      urlWithoutPassword: server.urlWithoutPassword(database),
      password: server.password,
      serverPid: server.pid,
    };
  }

  /** The database's size, then a CHECKPOINT measured on the server's writes. */
  async after(target: PostgresTarget): Promise<PostgresAfter> {
    const server = await this.started();
    const database = new URL(target.url).pathname.slice(1);
    const [size] = await server.query<{ bytes: string }>("SELECT pg_database_size($1)::text AS bytes", [database]);
    const before = readTreeStats(server.pid);
    await server.query("CHECKPOINT");
    const written = treeDelta(before, readTreeStats(server.pid));
    return {
      databaseBytes: Number(size?.bytes ?? 0),
      checkpointWriteBytes: written?.wchar,
      checkpointKernelWriteBytes: written?.writeBytes,
    };
  }

  describe(): PostgresInfo | undefined {
    return this.info;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    this.server = undefined;
  }
}
