import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { type Dispatcher, request } from "undici";
import { parseRetryAfter } from "../../api/retry-after.js";
import { USER_AGENT } from "../../api/transport.js";
import { errorDetail, RosterPullError, RosterSourceAuthError } from "../../errors.js";
import { cappedChunks, ResponseTooLarge, readCapped, readCappedBytes } from "../../read-capped.js";
import { sleepUnlessAborted } from "../../timers.js";

/**
 * One GET (or POST) of an HRIS report or API page, as every HTTP source makes it: timeouts, a byte cap,
 * redirects only within the same origin, credentials only over HTTPS (plain HTTP only to this
 * machine, for local fakes and tests), and retries inside the run: after a 429 or 503 as long as
 * its Retry-After says (up to a cap), after a 5xx, a timeout or a cut connection with backoff.
 * A 401 or 403 is the operator's to fix (RosterSourceAuthError, exit 2); anything else that does
 * not end in a whole answer is a RosterPullError (exit 1).
 */
export interface HttpPullOptions {
  /** The source's name, for errors and logs: `https`, `bamboohr`, `merge`. */
  readonly source: string;
  /** Per request: until the headers come, and between two chunks of the body. */
  readonly timeoutMs: number;
  /** The largest body read; a longer one is cut and the pull fails. */
  readonly maxBytes: number;
  /** Tries per request, the first included. */
  readonly attempts?: number;
  /** The longest wait a Retry-After is followed for; a longer one fails the pull. */
  readonly maxRetryWaitMs?: number;
  readonly signal?: AbortSignal | undefined;
  /** Waits between tries (tests make it instant). */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now?: () => number;
}

/** What a source is built with besides its config: the tries, the waits, the clock (tests set them). */
export type PullSeams = Omit<HttpPullOptions, "source" | "timeoutMs" | "maxBytes">;

/** One pull's options: the source's seams, its name, and the limits of its config. */
export function pullOptions(
  source: string,
  seams: PullSeams,
  limits: { readonly timeoutSeconds: number; readonly maxBytes: number },
  signal: AbortSignal | undefined,
): HttpPullOptions {
  return { ...seams, source, timeoutMs: limits.timeoutSeconds * 1000, maxBytes: limits.maxBytes, signal };
}

/** What a request is besides its URL and headers: a GET unless told otherwise. */
export interface HttpCall {
  readonly method?: "GET" | "POST";
  /** The body of a POST (sent again, whole, with every try and after a 307 or 308). */
  readonly body?: string;
  /**
   * Statuses handed back as answers (their body read as text, within 64 KiB) instead of failing
   * the pull: a source that falls back to another endpoint on a 404 names it here.
   */
  readonly answerStatuses?: readonly number[];
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The body as text (`into: "text"`; "" otherwise). */
  readonly text: string;
  /** The body undecoded (`into: "bytes"`; empty otherwise). */
  readonly body: Buffer;
  /** The body's length, or the bytes written to the file (`into: { file }`). */
  readonly bytes: number;
  /** The URL that answered, after same-origin redirects. */
  readonly url: string;
}

/**
 * Where the body goes: decoded to text, kept as bytes (a page sliced rather than parsed whole), or
 * streamed into a file.
 */
export type PullInto = "text" | "bytes" | { readonly file: string };

const NO_BYTES = Buffer.alloc(0);
const DEFAULT_ATTEMPTS = 4;
const DEFAULT_MAX_RETRY_WAIT_MS = 120_000;
const MAX_REDIRECTS = 5;
const ANSWERED_BODY_BYTES = 64 * 1024;
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** HTTPS, or plain HTTP to this machine only: credentials never cross a network in clear. */
export function checkPullUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RosterSourceAuthError("config", `"${text}" is not a URL`);
  }
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && LOOPBACK.test(url.hostname)) return url;
  throw new RosterSourceAuthError("config", `${url.origin} is not HTTPS: an HRIS is reached over https:// only`);
}

function headerMap(headers: Dispatcher.ResponseData["headers"]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers))
    out[name.toLowerCase()] = Array.isArray(value) ? value[0] : value;
  return out;
}

/** Why one try failed and whether another may follow. */
class TryFailed extends Error {
  constructor(
    message: string,
    readonly waitMs: number | undefined,
  ) {
    super(message);
  }
}

async function bodyToFile(body: Dispatcher.ResponseData["body"], path: string, limit: number): Promise<number> {
  const out = createWriteStream(path, { flags: "w", mode: 0o600 });
  let size = 0;
  try {
    for await (const buffer of cappedChunks(body, limit)) {
      size += buffer.length;
      if (!out.write(buffer)) await once(out, "drain");
    }
  } finally {
    out.end();
    await once(out, "close");
  }
  return size;
}

/** One request, following same-origin redirects. Throws TryFailed for what another try may fix. */
async function requestOnce(
  start: URL,
  headers: Readonly<Record<string, string>>,
  into: PullInto,
  options: HttpPullOptions,
  call: HttpCall,
): Promise<HttpAnswer> {
  let url = start;
  let method = call.method ?? "GET";
  let body = method === "POST" ? call.body : undefined;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method,
        headers: { "user-agent": USER_AGENT, ...headers },
        ...(body === undefined ? {} : { body }),
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new TryFailed(`${url.origin}${url.pathname} did not answer (${errorDetail(error)})`, undefined);
    }
    const status = response.statusCode;
    const answerHeaders = headerMap(response.headers);
    if (status >= 300 && status < 400 && status !== 304) {
      response.body.resume();
      const location = answerHeaders.location;
      if (location === undefined)
        throw new RosterPullError(options.source, `${url.origin} answered ${status} without a Location`);
      const next = new URL(location, url);
      if (next.origin !== url.origin) {
        throw new RosterPullError(
          options.source,
          `${url.origin}${url.pathname} redirected to another origin (${next.origin}); redirects are followed only within the same scheme, host and port`,
        );
      }
      url = next;
      // A 303 (and, as browsers do, a 301 or 302 after a POST) is followed with a GET; a 307 or
      // 308 repeats the request as it was.
      if (status === 303 || (method === "POST" && (status === 301 || status === 302))) {
        method = "GET";
        body = undefined;
      }
      continue;
    }
    if (call.answerStatuses?.includes(status)) {
      const text = await readCapped(response.body, ANSWERED_BODY_BYTES).catch(() => "");
      return {
        status,
        headers: answerHeaders,
        text,
        body: NO_BYTES,
        bytes: Buffer.byteLength(text),
        url: url.toString(),
      };
    }
    if (status === 401 || status === 403) {
      response.body.resume();
      throw new RosterSourceAuthError(
        options.source,
        `${url.origin}${url.pathname} refused the credential (${status}): check the user, password, token or API key and the account's permissions`,
      );
    }
    if (status === 429 || status >= 500) {
      response.body.resume();
      const wait = parseRetryAfter(answerHeaders["retry-after"], options.now?.() ?? Date.now());
      throw new TryFailed(
        `${url.origin}${url.pathname} answered ${status}`,
        wait === undefined ? undefined : wait * 1000,
      );
    }
    if (status >= 400) {
      const text = await readCapped(response.body, 2048).catch(() => "");
      throw new RosterPullError(
        options.source,
        `${url.origin}${url.pathname} answered ${status}: ${text.slice(0, 200)}`,
      );
    }
    try {
      if (into === "text" || into === "bytes") {
        const bytes = status === 304 ? NO_BYTES : await readCappedBytes(response.body, options.maxBytes);
        if (status === 304) response.body.resume();
        const text = into === "text" ? bytes.toString("utf8") : "";
        const body = into === "bytes" ? bytes : NO_BYTES;
        return { status, headers: answerHeaders, text, body, bytes: bytes.length, url: url.toString() };
      }
      const bytes = status === 304 ? 0 : await bodyToFile(response.body, into.file, options.maxBytes);
      if (status === 304) response.body.resume();
      const expected = answerHeaders["content-length"];
      if (expected !== undefined && status !== 304 && Number(expected) !== bytes) {
        throw new TryFailed(
          `${url.origin}${url.pathname}: the answer was cut (${bytes} of ${expected} bytes)`,
          undefined,
        );
      }
      return { status, headers: answerHeaders, text: "", body: NO_BYTES, bytes, url: url.toString() };
    } catch (error) {
      if (error instanceof ResponseTooLarge) {
        throw new RosterPullError(
          options.source,
          `${url.origin}${url.pathname}: ${error.message} (roster.source.maxBytes); nothing was read`,
        );
      }
      if (error instanceof TryFailed || options.signal?.aborted) throw error;
      throw new TryFailed(`${url.origin}${url.pathname}: the answer was cut (${errorDetail(error)})`, undefined);
    }
  }
  throw new RosterPullError(options.source, `${start.origin}${start.pathname}: more than ${MAX_REDIRECTS} redirects`);
}

/** A GET with the retries of the run: waits as Retry-After says or backs off, then gives up. */
export function httpGet(
  url: string,
  headers: Readonly<Record<string, string>>,
  into: PullInto,
  options: HttpPullOptions,
): Promise<HttpAnswer> {
  return httpRequest(url, headers, into, options, {});
}

/** A GET or POST with the retries of the run (as httpGet), its body sent again whole with each try. */
export async function httpRequest(
  url: string,
  headers: Readonly<Record<string, string>>,
  into: PullInto,
  options: HttpPullOptions,
  call: HttpCall,
): Promise<HttpAnswer> {
  const start = checkPullUrl(url);
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  const maxWait = options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
  const sleep = options.sleep ?? sleepUnlessAborted;
  let last = "";
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    try {
      return await requestOnce(start, headers, into, options, call);
    } catch (error) {
      if (!(error instanceof TryFailed)) throw error;
      last = error.message;
      if (attempt === attempts) break;
      const wait = error.waitMs ?? 1000 * 2 ** (attempt - 1);
      if (wait > maxWait) {
        throw new RosterPullError(
          options.source,
          `${last}, asking to wait ${Math.ceil(wait / 1000)} s: longer than a run waits`,
        );
      }
      await sleep(wait, options.signal);
      if (options.signal?.aborted)
        throw new RosterPullError(options.source, `${last}; stopped while waiting to try again`);
    }
  }
  throw new RosterPullError(options.source, `${last} (${attempts} tries); the next schedule tries again`);
}
