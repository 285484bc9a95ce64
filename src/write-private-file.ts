import { randomBytes } from "node:crypto";
import { open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Owner read and write only: what the program writes may name people. */
const OWNER_ONLY = 0o600;

/**
 * Writes `text` to `path` whole or not at all, owner-only (0600), safe in a shared folder: the
 * text goes to a temporary file beside `path` with a random name, created exclusively (O_EXCL:
 * never an existing file, never through a symlink someone planted), then renamed over `path`
 * (a rename replaces the name itself, never following a symlink there). So a reader sees the old
 * file or the new one, and the new one is always a fresh file of ours with mode 0600.
 * `temporaryName` is for tests: a name already taken is refused (EEXIST), not reused.
 */
export async function writePrivateFile(
  path: string,
  text: string,
  temporaryName: (path: string) => string = randomTemporaryName,
): Promise<void> {
  const temporary = temporaryName(path);
  // "wx": O_CREAT | O_EXCL. The mode applies because the file is new; the umask only takes bits away.
  const handle = await open(temporary, "wx", OWNER_ONLY);
  let written = false;
  try {
    await handle.writeFile(text, "utf8");
    await handle.sync();
    written = true;
  } finally {
    await handle.close();
    if (!written) await unlink(temporary).catch(() => undefined);
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** `.plan.json.3f9a...c1.tmp` beside the file: hidden, unguessable, on the same file system as the target. */
function randomTemporaryName(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(12).toString("hex")}.tmp`);
}
