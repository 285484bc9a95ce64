import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { RosterPullError } from "../../errors.js";
import { describe, statusCode, TryFailed } from "./sftp-common.js";
import type { Session } from "./sftp-session.js";

/** The largest read asked for at once; the client splits it into the server's largest reads. */
const READ_CHUNK = 1024 * 1024;

/**
 * Downloads `remote` into `file` (owner-only) over `session`, counting the bytes: a read longer
 * than `maxBytes` stops, a connection closed or silent for longer than the timeout fails the try.
 */
export async function download(session: Session, remote: string, file: string, maxBytes: number): Promise<number> {
  const input = session.client.createReadStream(remote, { highWaterMark: READ_CHUNK });
  const output = createWriteStream(file, { flags: "w", mode: 0o600 });
  const seconds = session.timeoutMs / 1000;
  let bytes = 0;
  let timer: NodeJS.Timeout | undefined;
  let settle: (error?: Error) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    let settled = false;
    settle = (error) => {
      if (settled) return;
      settled = true;
      if (error) reject(error);
      else resolve();
    };
  });
  // Settled here, not by the stream's own error: a read stream on a dead connection never ends.
  const fail = (error: Error) => {
    settle(error);
    input.destroy();
  };
  const idle = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      session.destroy();
      fail(new TryFailed(`${session.where}: ${remote}: no data for ${seconds} s after ${bytes} bytes`));
    }, session.timeoutMs);
  };
  const closed = () => fail(new TryFailed(`${session.where}: the connection closed after ${bytes} bytes of ${remote}`));
  session.client.on("close", closed);
  input.on("error", (error: Error) =>
    fail(
      session.stopped
        ? new TryFailed(`${session.where}: ${remote}: the download was cut after ${bytes} bytes`)
        : statusCode(error) !== undefined && bytes === 0
          ? new TryFailed(`${remote} could not be opened (${describe(error)})`)
          : new TryFailed(`${session.where}: ${remote}: the download failed after ${bytes} bytes (${describe(error)})`),
    ),
  );
  output.on("error", (error: Error) =>
    fail(new RosterPullError("sftp", `the pull could not be written to ${file} (${describe(error)})`)),
  );
  input.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > maxBytes) {
      fail(
        new RosterPullError(
          "sftp",
          `${remote} is longer than ${maxBytes} bytes (roster.source.maxBytes); nothing was read`,
        ),
      );
      return;
    }
    idle();
    if (!output.write(chunk)) {
      input.pause();
      output.once("drain", () => input.resume());
    }
  });
  input.on("end", () => settle());
  idle();
  try {
    await done;
  } finally {
    clearTimeout(timer);
    session.client.removeListener("close", closed);
    if (!output.closed) {
      const closing = once(output, "close").catch(() => undefined);
      output.end();
      await closing;
    }
  }
  return bytes;
}
