import type { ServiceErrorCode } from "./service-error-codes.js";

/**
 * An API failure the emulator answers with: status, the Error shape of spec 2.1 (`error`, optional
 * `code`), optional extra body fields (e.g. the 409 mismatch's resolved company) and headers.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: ServiceErrorCode,
    readonly headers: Readonly<Record<string, string>> = {},
    readonly extra: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return { error: this.message, ...(this.code ? { code: this.code } : {}), ...this.extra };
  }
}

export const invalid = (message: string): HttpError => new HttpError(400, message, "INVALID_BODY");
export const notFound = (what = "Resource"): HttpError =>
  new HttpError(404, `${what} not found or outside this key's reach.`);

/** Seconds for a Retry-After header: an integer, at least 1 (spec 7 rule 3). */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
