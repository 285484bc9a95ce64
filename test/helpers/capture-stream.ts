import { PassThrough } from "node:stream";

/** A writable stream whose whole output a test can read back (a command's stdout or stderr). */
export function captureStream(): { readonly stream: PassThrough; text(): string } {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (chunk) => {
    text += String(chunk);
  });
  return { stream, text: () => text };
}
