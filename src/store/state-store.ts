import type { Logger } from "../logger.js";
import { openSqliteStateStore } from "./sqlite-state-store.js";
import type { StateStore } from "./store-types.js";

export type {
  DurableQueue,
  KeySet,
  KeyValueNamespace,
  QueuedItem,
  StateStore,
  StoreScope,
  SweepReport,
} from "./store-types.js";

/**
 * Opens the state database (SQLite: a file path, or `:memory:` in tests). A database written by an
 * earlier release is migrated on the spot, and the migration logged; one written by a newer release
 * is refused with a StoreError that says what to do.
 */
export async function openStateStore(path: string, options: { logger?: Logger } = {}): Promise<StateStore> {
  const { store, schema } = await openSqliteStateStore(path);
  if (schema.migrated) {
    options.logger?.warn(
      { state: store.location, fromSchema: schema.from, moved: schema.migrated },
      "state database written by an earlier release: migrated its outbox and handled-change keys to their own tables",
    );
  }
  return store;
}
