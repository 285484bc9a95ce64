import type { Logger } from "../logger.js";
import { isPostgresUrl } from "./postgres-url.js";
import { openSqliteReadOnly } from "./sqlite-read-only.js";
import { openSqliteStateStore } from "./sqlite-state-store.js";
import type { StateStore } from "./store-types.js";

export { isPostgresUrl, postgresUrlPassword, redactedPostgresUrl } from "./postgres-url.js";
export type {
  DurableQueue,
  Fence,
  KeySet,
  KeyValueNamespace,
  LeaderElection,
  LeaderElectionOptions,
  LeaderTerm,
  QueuedItem,
  StateStore,
  StoreScope,
  SweepReport,
} from "./store-types.js";

export interface OpenStateStoreOptions {
  readonly logger?: Logger | undefined;
  /** Postgres: the password when the URL carries none (PGPASSWORD); never logged. */
  readonly password?: string | undefined;
}

/**
 * Opens the state database: a `postgres://` URL (shared by replicas, with leader election) or a
 * SQLite file path (`:memory:` in tests). A database of an earlier schema is brought to this
 * release's on the spot; one written by a newer release (either engine) is refused with a
 * StoreError that says what to do.
 */
export async function openStateStore(location: string, options: OpenStateStoreOptions = {}): Promise<StateStore> {
  if (isPostgresUrl(location)) {
    // Loaded here, not at the top: the `pg` driver costs a SQLite daemon memory and start time.
    const { openPostgresStateStore } = await import("./postgres-state-store.js");
    const { store, schema } = await openPostgresStateStore(location, {
      password: options.password,
      logger: options.logger,
    });
    if (schema.from === 0) options.logger?.info({ state: store.location }, "state database: created the tables");
    return store;
  }
  const { store, schema, warnings } = await openSqliteStateStore(location);
  for (const warning of warnings) options.logger?.warn({ state: store.location }, warning);
  if (schema.from > 0 && schema.from < schema.to) {
    options.logger?.info(
      { state: store.location, fromSchema: schema.from, toSchema: schema.to },
      "state database: schema upgraded",
    );
  }
  return store;
}

/**
 * Opens the state database for reading only (`status`): nothing is created, migrated or written,
 * no lock is taken, so it is safe beside a running daemon. A write through it fails. A SQLite file
 * that does not exist is a StoreError naming the path (the daemon has not run with it).
 */
export async function openStateStoreReadOnly(
  location: string,
  options: Pick<OpenStateStoreOptions, "password"> = {},
): Promise<StateStore> {
  if (isPostgresUrl(location)) {
    const { openPostgresStateStore } = await import("./postgres-state-store.js");
    return (await openPostgresStateStore(location, { password: options.password, readOnly: true, poolSize: 1 })).store;
  }
  return openSqliteReadOnly(location);
}
