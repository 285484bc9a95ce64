import type { Dispatcher } from "undici";

/** An answer body longer than the reader's limit: the connection was closed, the body dropped. */
export class ResponseTooLarge extends Error {}

/** Reads an undici response body as UTF-8, giving up (and closing the connection) past `limit` bytes. */
export async function readCapped(body: Dispatcher.ResponseData["body"], limit: number): Promise<string> {
  return (await readCappedBytes(body, limit)).toString("utf8");
}

/** As readCapped, the bytes undecoded: for a reader that slices the body rather than parsing it whole. */
export async function readCappedBytes(body: Dispatcher.ResponseData["body"], limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const buffer of cappedChunks(body, limit)) {
    size += buffer.length;
    chunks.push(buffer);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}

/**
 * The body's chunks as they come, as Buffers, giving up (and closing the connection) once they pass
 * `limit` bytes in all: for a reader that writes the body on rather than keeping it.
 */
export async function* cappedChunks(body: Dispatcher.ResponseData["body"], limit: number): AsyncGenerator<Buffer> {
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size > limit) {
      body.destroy();
      throw new ResponseTooLarge(`the answer is longer than ${limit} bytes`);
    }
    yield buffer;
  }
}
