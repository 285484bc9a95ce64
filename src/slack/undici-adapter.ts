import type { WebClientOptions } from "@slack/web-api";
import { request } from "undici";
import { readCapped } from "../read-capped.js";

/** The most of a Slack answer read: its answers are a few KB; this only stops a runaway body. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * The WebClient's HTTP layer on undici, the program's one HTTP client, instead of axios's Node
 * `http` adapter: the same request (the SDK has already built the URL-encoded body and the headers,
 * and axios still parses the JSON answer), about 0.2 ms less CPU per `chat.postMessage` on this
 * project's machines (BENCHMARKS.md 5.1). Every status resolves, as the SDK asks (`validateStatus`
 * always true): the SDK itself turns 429s and non-200s into its coded errors. A connection failure
 * or time-out is thrown with `request` set, which the SDK reports as its `RequestError`.
 */
export const undiciAdapter: NonNullable<WebClientOptions["adapter"]> = async (config) => {
  const url = new URL(config.url ?? "", config.baseURL);
  const method = (config.method ?? "get").toUpperCase();
  if (config.data !== undefined && typeof config.data !== "string") {
    // Only file uploads send a stream body; retention-sync never uploads.
    throw Object.assign(new Error(`Slack ${url.pathname}: only URL-encoded calls are supported`), { request: { url } });
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(config.headers.toJSON())) {
    if (value !== undefined && value !== null) headers[name] = String(value);
  }
  const timeoutMs = config.timeout && config.timeout > 0 ? config.timeout : undefined;
  try {
    const answer = await request(url, {
      method: method as "POST",
      headers,
      body: config.data,
      ...(timeoutMs ? { headersTimeout: timeoutMs, bodyTimeout: timeoutMs } : {}),
      ...(config.signal instanceof AbortSignal ? { signal: config.signal } : {}),
    });
    return {
      data: await readCapped(answer.body, MAX_ANSWER_BYTES),
      status: answer.statusCode,
      statusText: "",
      headers: answer.headers as Record<string, string>,
      config,
      request: { url: url.href },
    };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw Object.assign(new Error(`${method} ${url.origin}${url.pathname}: ${detail}`, { cause: error }), {
      request: { url: url.href },
    });
  }
};
