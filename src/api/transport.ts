import { Agent, type Dispatcher, request } from "undici";
import {
  ApiNetworkError,
  ApiResponseError,
  ApiTimeoutError,
  apiErrorFromStatus,
  errorDetail,
  isServiceErrorCode,
} from "../errors.js";
import { packageVersion } from "../package-version.js";
import { ResponseTooLarge, readCapped } from "../read-capped.js";
import { startTimer } from "../timers.js";
import { isRecord } from "./lenient-read.js";
import { parseRetryAfter } from "./retry-after.js";

/** `retention-sync/<version>`, sent on every request. */
export const USER_AGENT = `retention-sync/${packageVersion()}`;

export type QueryValue = string | number | boolean | undefined;

export interface TransportRequest {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Path relative to the base URL, starting with `/`, without query. */
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  readonly signal?: AbortSignal | undefined;
}

export interface TransportResponse {
  readonly status: number;
  /** Parsed JSON body; undefined for an empty body. */
  readonly data: unknown;
}

export interface TransportOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly timeoutMs: number;
  /** Clock for HTTP-date Retry-After values. */
  readonly now?: () => number;
}

/** Builds the request URL: base URL (with its `/api/v1`) + path + defined query parameters. */
export function buildUrl(baseUrl: string, path: string, query?: Readonly<Record<string, QueryValue>>): string {
  const url = new URL(baseUrl.replace(/\/+$/, "") + path);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url.toString();
}

/** The largest answer read: a page of 100 people is about 100 KiB; anything near this is not the API. */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * One HTTP exchange with API v1 over undici, with its own keep-alive Agent: JSON in and out,
 * the bearer key only in the Authorization header, a per-request timeout covering headers and
 * body. Maps every failure to the error hierarchy; retries and pacing are the caller's job.
 */
export class Transport {
  private readonly agent: Agent;
  private readonly options: TransportOptions;
  private readonly scrub: (text: string) => string;

  constructor(options: TransportOptions) {
    this.options = options;
    this.agent = new Agent({ keepAliveTimeout: 10_000, connections: 8 });
    const key = options.apiKey;
    // A server that echoes the key in an error sentence must not carry it into our messages.
    this.scrub = key.length > 0 ? (text) => text.split(key).join("[redacted]") : (text) => text;
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    const { method, path } = req;
    const url = buildUrl(this.options.baseUrl, path, req.query);
    const controller = new AbortController();
    let timedOut = false;
    const cancelTimer = startTimer(this.options.timeoutMs, () => {
      timedOut = true;
      controller.abort();
    });
    const signal = req.signal ? AbortSignal.any([controller.signal, req.signal]) : controller.signal;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.apiKey}`,
      "user-agent": USER_AGENT,
      accept: "application/json",
    };
    if (req.body !== undefined) headers["content-type"] = "application/json";

    let status = 0;
    let responseHeaders: Dispatcher.ResponseData["headers"];
    let text: string;
    try {
      const response = await request(url, {
        method,
        headers,
        body: req.body === undefined ? null : JSON.stringify(req.body),
        dispatcher: this.agent,
        signal,
      });
      status = response.statusCode;
      responseHeaders = response.headers;
      text = await readCapped(response.body, MAX_RESPONSE_BYTES);
    } catch (error) {
      if (error instanceof ResponseTooLarge) {
        const mib = MAX_RESPONSE_BYTES / 1024 / 1024;
        throw new ApiResponseError(method, path, status, `the answer is larger than ${mib} MiB; not read`);
      }
      if (timedOut) throw new ApiTimeoutError(method, path, this.options.timeoutMs, { cause: error });
      if (req.signal?.aborted) throw req.signal.reason ?? error;
      throw new ApiNetworkError(method, path, this.scrub(errorDetail(error)), { cause: error });
    } finally {
      cancelTimer();
    }

    let data: unknown;
    let parsed = true;
    if (text.trim() !== "") {
      try {
        data = JSON.parse(text);
      } catch {
        parsed = false;
      }
    }
    if (status >= 200 && status < 300) {
      if (!parsed) {
        const snippet = this.scrub(text.slice(0, 80)).replace(/\s+/g, " ");
        throw new ApiResponseError(method, path, status, `body is not JSON: "${snippet}"`);
      }
      return { status, data };
    }
    const body = parsed && isRecord(data) ? data : undefined;
    const message = typeof body?.error === "string" ? this.scrub(body.error) : `HTTP ${status}`;
    const retryAfterSeconds = parseRetryAfter(responseHeaders["retry-after"], (this.options.now ?? Date.now)());
    throw apiErrorFromStatus({
      status,
      code: isServiceErrorCode(body?.code) ? body.code : undefined,
      message,
      method,
      path,
      retryAfterSeconds,
      body: body ?? (parsed ? data : undefined),
    });
  }

  /** Closes the keep-alive connections. */
  close(): Promise<void> {
    return this.agent.close();
  }
}
