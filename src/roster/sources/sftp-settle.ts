import { RosterPullError } from "../../errors.js";
import { describe, plural, statusCode, TryFailed, when } from "./sftp-common.js";
import type { Session } from "./sftp-session.js";

/** How a file without a done marker is judged still: two looks this far apart must agree. */
export interface SftpSettleOptions {
  /** The pause between two looks at the file (default 5 s). */
  readonly settleMs?: number;
  /** Looks after the first before a file that keeps changing fails the pull (default 4). */
  readonly settleLooks?: number;
}

const SETTLE_MS = 5_000;
const SETTLE_LOOKS = 4;

/** The file chosen, as one look at it saw it. */
export interface Look {
  readonly size: number;
  /** Milliseconds since the epoch (SFTP gives whole seconds). */
  readonly mtimeMs: number;
}

/** One look at `remote`: its size and modification time. */
export async function lookAt(session: Session, remote: string): Promise<Look> {
  try {
    const attrs = await session.request(`stat of ${remote}`, () => session.client.stat(remote));
    if (!attrs.isFile) throw new RosterPullError("sftp", `${remote} is not a regular file`);
    // A server that gives no modification time: 0, and the pull's time stands for it.
    const mtimeMs = Number.isFinite(attrs.modifyTime) && attrs.modifyTime > 0 ? attrs.modifyTime : 0;
    return { size: attrs.size, mtimeMs };
  } catch (error) {
    if (statusCode(error) !== undefined) {
      // Listed a moment ago and gone now: replaced or moved while we looked.
      throw new TryFailed(`${remote} could not be looked at (${describe(error)})`);
    }
    throw error;
  }
}

/**
 * The file once it is whole: with a done marker, as it is (the marker says so); without one,
 * once its size and modification time hold still between two looks a pause apart.
 */
export async function untilWhole(
  session: Session,
  remote: string,
  first: Look,
  how: {
    readonly doneMarker: string | undefined;
    readonly settle: SftpSettleOptions;
    readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  },
  signal: AbortSignal | undefined,
): Promise<Look> {
  if (how.doneMarker) return first;
  const pause = how.settle.settleMs ?? SETTLE_MS;
  const looks = how.settle.settleLooks ?? SETTLE_LOOKS;
  const sleep = how.sleep;
  const seen = [first];
  for (let n = 1; n <= looks; n += 1) {
    await sleep(pause, signal);
    if (signal?.aborted) throw new RosterPullError("sftp", `${remote}: the pull was stopped`);
    const next = await lookAt(session, remote);
    const previous = seen[seen.length - 1] as Look;
    if (next.size === previous.size && next.mtimeMs === previous.mtimeMs) return next;
    seen.push(next);
  }
  const sizes = seen.map((l) => `${l.size} bytes at ${when(l.mtimeMs)}`).join(", then ");
  throw new RosterPullError(
    "sftp",
    `${remote} kept changing over ${plural(seen.length, "look")} ${Math.round(pause / 1000)} s apart (${sizes}): ` +
      "it is still being written. Not read; the next schedule tries again (a doneMarker, when the HRIS writes one, says when a file is whole)",
  );
}
