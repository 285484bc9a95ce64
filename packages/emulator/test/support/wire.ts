/**
 * Plain-fetch access to a running emulator for the conformance suite: the suite checks the wire,
 * so it never goes through the retention-sync API client. (The suite-wide log audit still sees the
 * emulator's log lines: test/setup/log-audit.ts audits its default logger, and its generated keys
 * and webhook secrets match the audit's secret patterns.)
 */
import { afterAll, beforeAll } from "vitest";
import { type EmulatorHandle, type EmulatorOptions, startEmulator } from "../../src/start-emulator.js";

export type JsonObject = Record<string, unknown>;

export interface WireResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  body: unknown;
  /** The body as an object (empty object when it is not one) for terse assertions. */
  json: JsonObject;
}

export interface RequestOptions {
  /** Bearer key; `null` sends no Authorization header; default the write key. */
  key?: string | null;
  body?: unknown;
  /** Sent verbatim instead of JSON.stringify(body). */
  rawBody?: string;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

async function toWire(res: Response): Promise<WireResponse> {
  const text = await res.text();
  let body: unknown;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body, json: isObject(body) ? body : {} };
}

/** One emulator plus terse request helpers. */
export class Wire {
  constructor(readonly handle: EmulatorHandle) {}

  get writeKey(): string {
    return this.handle.writeKey;
  }
  get readKey(): string {
    return this.handle.readKey;
  }
  get organizationId(): number {
    return this.handle.organizationId;
  }

  /** A request under /api/v1. */
  async api(method: string, path: string, options: RequestOptions = {}): Promise<WireResponse> {
    const url = new URL(this.handle.baseUrl + path);
    for (const [k, v] of Object.entries(options.query ?? {})) {
      if (v !== undefined) url.searchParams.set(k, String(v));
    }
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const key = options.key === undefined ? this.handle.writeKey : options.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let payload: string | undefined;
    if (options.rawBody !== undefined) payload = options.rawBody;
    else if (options.body !== undefined) payload = JSON.stringify(options.body);
    if (payload !== undefined && headers["content-type"] === undefined) headers["content-type"] = "application/json";
    const res = await fetch(url, { method, headers, ...(payload === undefined ? {} : { body: payload }) });
    return toWire(res);
  }

  get(path: string, options: RequestOptions = {}): Promise<WireResponse> {
    return this.api("GET", path, options);
  }
  post(path: string, body: unknown, options: RequestOptions = {}): Promise<WireResponse> {
    return this.api("POST", path, { ...options, body });
  }
  patch(path: string, body: unknown, options: RequestOptions = {}): Promise<WireResponse> {
    return this.api("PATCH", path, { ...options, body });
  }
  delete(path: string, options: RequestOptions = {}): Promise<WireResponse> {
    return this.api("DELETE", path, options);
  }

  /** A request on the service host, outside /api/v1 (OpenAPI, control API). */
  async raw(method: string, path: string, body?: unknown): Promise<WireResponse> {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { "content-type": "application/json" };
    }
    return toWire(await fetch(this.handle.url + path, init));
  }

  /** A control API call that must succeed. */
  async control(method: string, path: string, body?: unknown): Promise<WireResponse> {
    const res = await this.raw(method, `/_emulator${path}`, body);
    if (res.status >= 300) throw new Error(`control ${method} ${path} -> ${res.status} ${res.text}`);
    return res;
  }

  async advanceClock(seconds: number): Promise<void> {
    await this.control("POST", "/clock", { advanceSeconds: seconds });
  }

  async setBilling(body: JsonObject): Promise<void> {
    await this.control("POST", "/billing", body);
  }

  async signals(body: JsonObject): Promise<WireResponse> {
    return this.control("POST", "/signals", body);
  }

  async faults(body: JsonObject): Promise<void> {
    await this.control("POST", "/faults", body);
  }

  /** Creates a key through the control API and returns its secret text. */
  async createKey(body: JsonObject): Promise<string> {
    const res = await this.control("POST", "/keys", body);
    return keyText(res.body);
  }

  async state(): Promise<JsonObject> {
    return (await this.control("GET", "/state")).json;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** The key string in a control API answer (lenient about its field name). */
export function keyText(body: unknown): string {
  if (typeof body === "string") return body;
  if (isObject(body)) {
    for (const f of ["key", "apiKey", "token", "secret"]) {
      const v = body[f];
      if (typeof v === "string") return v;
    }
  }
  throw new Error(`no key in control answer ${JSON.stringify(body)}`);
}

export const FAST: EmulatorOptions = { importDelayMs: 0, signalIntervalMs: 0, allowLoopbackWebhooks: true };

export async function bootEmulator(options: EmulatorOptions = {}): Promise<Wire> {
  return new Wire(await startEmulator({ port: 0, host: "127.0.0.1", seed: "empty", ...FAST, ...options }));
}

/** One emulator for a whole file (read-only tests, or tests that tolerate shared state). */
export function sharedEmulator(options: EmulatorOptions = {}): () => Wire {
  let wire: Wire | undefined;
  beforeAll(async () => {
    wire = await bootEmulator(options);
  });
  afterAll(async () => {
    await wire?.close();
  });
  return () => {
    if (wire === undefined) throw new Error("emulator not started");
    return wire;
  };
}

/** Public profile URL with a unique slug. */
let counter = 0;
export function profileUrl(slug?: string): string {
  counter += 1;
  return `https://www.linkedin.com/in/${slug ?? `person-${process.pid}-${counter}`}`;
}

export function profileUrls(n: number, prefix = "bulk"): string[] {
  return Array.from({ length: n }, (_, i) => profileUrl(`${prefix}-${process.pid}-${counter}-${i}`));
}

export function asArray(v: unknown): JsonObject[] {
  if (!Array.isArray(v)) throw new Error(`expected an array, got ${JSON.stringify(v)?.slice(0, 200)}`);
  return v.filter(isObject);
}

export function obj(v: unknown): JsonObject {
  if (!isObject(v)) throw new Error(`expected an object, got ${JSON.stringify(v)?.slice(0, 200)}`);
  return v;
}

export function num(v: unknown): number {
  if (typeof v !== "number") throw new Error(`expected a number, got ${JSON.stringify(v)}`);
  return v;
}
