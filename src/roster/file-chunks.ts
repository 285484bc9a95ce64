import type { Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { RosterFileError } from "../errors.js";

export const EXPORT_AGAIN = "export it again as CSV (UTF-8) or JSON";
/** Read size of the streamed readers. */
export const CHUNK_BYTES = 256 * 1024;

/** Streams a file in chunks into the hash, refusing NUL bytes (a binary or corrupt file). */
export async function* chunksOf(file: string, hash: Hash): AsyncGenerator<Buffer> {
  let offset = 0;
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      const nul = chunk.indexOf(0);
      if (nul >= 0) {
        throw new RosterFileError(
          file,
          `has a NUL byte at byte ${offset + nul}: it is binary or corrupt; ${EXPORT_AGAIN}`,
        );
      }
      offset += chunk.length;
      yield chunk;
    }
  } catch (error) {
    if (error instanceof RosterFileError) throw error;
    throw new RosterFileError(file, `cannot be read: ${(error as Error).message}`, { cause: error });
  }
}
