import type { Rng } from "./rng.js";

/** Transport faults injected into `/api/v1` responses through `POST /_emulator/faults`. */
export interface FaultSettings {
  errorRate: number;
  timeoutRate: number;
  malformedRate: number;
  /**
   * Share of requests that are carried out and whose answer is then lost (the connection is cut):
   * what a proxy time-out or a network drop after the service committed looks like to a client.
   */
  lostResponseRate: number;
  /** Statuses answered in order by the next requests, one each (bursts such as [429, 429, 503]). */
  statuses: number[];
  /** How long a "timeout" holds the response (longer than the client's timeout). */
  timeoutDelayMs: number;
  /** Extra latency added to every API response. */
  latencyMs: number;
  /** Share of webhook events sent in the reduced form of spec 6.3 (0 = always the full form). */
  reducedEventRate: number;
}

export type Fault =
  | { kind: "none" }
  | { kind: "status"; status: number }
  | { kind: "error"; status: 500 | 502 | 503 }
  | { kind: "timeout"; delayMs: number }
  | { kind: "malformed" }
  | { kind: "lost" };

export function noFaults(): FaultSettings {
  return {
    errorRate: 0,
    timeoutRate: 0,
    malformedRate: 0,
    lostResponseRate: 0,
    statuses: [],
    timeoutDelayMs: 15_000,
    latencyMs: 0,
    reducedEventRate: 0,
  };
}

/** Decides the fault for one request; consumes the burst queue first, then rolls the seeded dice. */
export function decideFault(settings: FaultSettings, rng: Rng): Fault {
  const queued = settings.statuses.shift();
  if (queued !== undefined) return { kind: "status", status: queued };
  const { errorRate, timeoutRate, malformedRate, lostResponseRate } = settings;
  if (errorRate === 0 && timeoutRate === 0 && malformedRate === 0 && lostResponseRate === 0) return { kind: "none" };
  const roll = rng.next();
  if (roll < errorRate) return { kind: "error", status: ([500, 502, 503] as const)[rng.int(3)] ?? 500 };
  if (roll < errorRate + timeoutRate) return { kind: "timeout", delayMs: settings.timeoutDelayMs };
  if (roll < errorRate + timeoutRate + malformedRate) return { kind: "malformed" };
  if (roll < errorRate + timeoutRate + malformedRate + lostResponseRate) return { kind: "lost" };
  return { kind: "none" };
}

export const FAULT_MESSAGES: Readonly<Record<number, string>> = {
  429: "Too many requests; retry after the number of seconds in Retry-After.",
  500: "Internal server error (injected by the emulator).",
  502: "Bad gateway (injected by the emulator).",
  503: "Service temporarily unavailable (injected by the emulator).",
  504: "Gateway timeout (injected by the emulator).",
};

/** A 200 body that is not valid JSON. */
export const MALFORMED_BODY = '{"items": [{"id": 1, "name": "trunc';
