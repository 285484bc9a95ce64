import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { StoreError } from "../errors.js";
import { openSqliteConnection } from "./sqlite-connection.js";
import { SqliteStateStore } from "./sqlite-state-store.js";
import type { StateStore } from "./store-types.js";

/**
 * The SQLite state file opened read-only: no folder or file made, no pragma, schema or probe
 * written (SQLite itself refuses any write), so a reader never disturbs the daemon that owns it.
 */
export async function openSqliteReadOnly(path: string): Promise<StateStore> {
  const file = resolve(path);
  if (!existsSync(file)) {
    throw new StoreError(
      `no state database at ${file}: no daemon has run with this state yet (state.path / RETENTION_SYNC_STATE)`,
    );
  }
  let connection: Awaited<ReturnType<typeof openSqliteConnection>>;
  try {
    // Without a -wal file no process writes it now (the daemon's connection keeps one while open):
    // read it as immutable, so that SQLite makes no -wal and -shm files beside it for this reader.
    const idle = !existsSync(`${file}-wal`);
    const name = idle ? `${pathToFileURL(file).href}?immutable=1` : file;
    connection = await openSqliteConnection(name, 10_000, { readOnly: true, uri: idle });
  } catch (error) {
    throw new StoreError(`cannot open the state database ${file} for reading: ${String(error)}`, { cause: error });
  }
  return new SqliteStateStore(connection, file, file);
}
