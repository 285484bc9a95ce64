import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";

/**
 * The SQLite state holds people's names, scores and who pressed what: its files are the owner's
 * alone. The folder is created 0700 when it is absent; the database and its `-wal` and `-shm`
 * files are created 0600 (SQLite gives the `-wal` and `-shm` files the database file's mode) and
 * tightened to 0600 when they are ours and looser. An existing folder is not changed (it may hold
 * other things, or be someone else's): a looser one gets a warning. Each function returns its
 * warnings; the store's opener logs them.
 */

const OWNER_ONLY_FILE = 0o600;
const OWNER_ONLY_FOLDER = 0o700;
/** Group and other permission bits. */
const OTHERS = 0o077;

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, "0");

function ours(uid: number): boolean {
  return process.getuid === undefined || process.getuid() === uid;
}

/** The database's folder (made 0700 if absent) and the database file (made 0600 if absent). */
export function prepareStateFiles(file: string): string[] {
  const folder = dirname(file);
  const warnings: string[] = [];
  const created = mkdirSync(folder, { recursive: true, mode: OWNER_ONLY_FOLDER });
  if (created !== undefined) {
    // The umask may have taken bits away, never added: set exactly 0700 on the folder made here.
    chmodSync(folder, OWNER_ONLY_FOLDER);
  } else {
    const mode = statSync(folder).mode;
    if ((mode & OTHERS) !== 0) {
      warnings.push(
        `the state folder ${folder} is open to other users (mode ${octal(mode)}); the state files in it are ` +
          `owner-only (0600), but their names show. Give the state a folder of its own: chmod 700 ${folder}`,
      );
    }
  }
  try {
    // Exclusive: never truncates or follows into a file another process made meanwhile.
    closeSync(openSync(file, "wx", OWNER_ONLY_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return [...warnings, ...tightenStateFiles(file)];
}

/** The database, `-wal` and `-shm` files that exist: tightened to 0600 when ours, else a warning. */
export function tightenStateFiles(file: string): string[] {
  const warnings: string[] = [];
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    let stats: ReturnType<typeof statSync>;
    try {
      stats = statSync(path);
    } catch {
      continue;
    }
    if ((stats.mode & OTHERS) === 0) continue;
    if (ours(stats.uid)) chmodSync(path, OWNER_ONLY_FILE);
    else {
      warnings.push(
        `the state file ${path} is readable by other users (mode ${octal(stats.mode)}) and not owned by this user, ` +
          `so it was left as it is: chown it to the user the daemon runs as, or chmod 600 ${path}`,
      );
    }
  }
  return warnings;
}
