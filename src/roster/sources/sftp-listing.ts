import { posix } from "node:path";
import type SftpClient from "ssh2-sftp-client";
import { RosterPullError, RosterSourceAuthError } from "../../errors.js";
import {
  describe,
  plural,
  SFTP_NO_SUCH_FILE,
  SFTP_PERMISSION_DENIED,
  type SftpConfig,
  statusCode,
  when,
} from "./sftp-common.js";
import type { Session } from "./sftp-session.js";

/** Names shown when no file matches. */
const SHOWN_NAMES = 10;

/** A file name pattern (`workers-*.csv`): `*` any run of characters, `?` one; the rest as written. */
export function globPattern(glob: string): RegExp {
  const body = [...glob]
    .map((c) => (c === "*" ? "[^/]*" : c === "?" ? "[^/]" : c.replace(/[\\^$.|+()[\]{}]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}

/** `path` as a folder and a file name pattern; a pattern in the folder is refused. */
export function splitPath(path: string): { dir: string; pattern: string } {
  const dir = posix.dirname(path);
  const pattern = posix.basename(path);
  if (/[*?]/.test(dir)) {
    throw new RosterSourceAuthError(
      "config",
      `roster.source.path ${path}: only the file name may hold a pattern (* or ?), not the folder`,
    );
  }
  if (pattern.length === 0 || path.endsWith("/")) {
    throw new RosterSourceAuthError(
      "config",
      `roster.source.path ${path}: expected a folder and a file name pattern, e.g. /exports/workers-*.csv`,
    );
  }
  return { dir, pattern };
}

/** The newest file of the folder matching the pattern (done markers left out), by modification time. */
export async function newestFile(
  session: Session,
  config: SftpConfig,
  where: { dir: string; pattern: string },
  origin: (remote: string) => string,
): Promise<string> {
  const { dir, pattern } = where;
  const marker = config.doneMarker;
  let entries: SftpClient.FileInfo[];
  try {
    entries = await session.request(`listing ${dir}`, () => session.client.list(dir));
  } catch (error) {
    const code = statusCode(error);
    if (code === SFTP_PERMISSION_DENIED) {
      throw new RosterSourceAuthError(
        "sftp",
        `${config.host}: ${config.username} may not list ${dir} (permission denied)`,
      );
    }
    if (code === SFTP_NO_SUCH_FILE) {
      throw new RosterPullError("sftp", `${origin(dir)}: no such folder on the server`);
    }
    if (code !== undefined) throw new RosterPullError("sftp", `listing ${dir} failed (${describe(error)})`);
    throw error;
  }
  const match = globPattern(pattern);
  const files = entries.filter((e) => e.type !== "d" && e.name !== "." && e.name !== "..");
  const candidates = files
    .filter((e) => match.test(e.name) && !(marker && e.name.endsWith(marker)))
    .sort((a, b) => b.modifyTime - a.modifyTime || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
  const newest = candidates[0];
  if (newest === undefined) {
    const names = files.map((e) => e.name).sort();
    const shown = names.slice(0, SHOWN_NAMES).join(", ");
    const more = names.length > SHOWN_NAMES ? `, and ${names.length - SHOWN_NAMES} more` : "";
    throw new RosterPullError(
      "sftp",
      `no file in ${origin(dir)} matches ${pattern}: ${
        names.length === 0 ? "the folder is empty" : `found ${plural(names.length, "file")}: ${shown}${more}`
      }. Nothing was read; the next schedule looks again`,
    );
  }
  if (marker && !files.some((e) => e.name === `${newest.name}${marker}`)) {
    throw new RosterPullError(
      "sftp",
      `${posix.join(dir, newest.name)} (${newest.size} bytes, modified ${when(newest.modifyTime)}) has no ` +
        `${newest.name}${marker} yet: it is still being delivered, or its delivery failed. Not read; the next schedule looks again`,
    );
  }
  return newest.name;
}
