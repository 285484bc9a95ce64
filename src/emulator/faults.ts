import type { Rng } from "./rng.js";

/** Transport faults injected into `/api/v1` responses through `POST /_emulator/faults`. */
export interface FaultSettings {
  errorRate: number;
  timeoutRate: number;
  malformedRate: number;
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
  | { kind: "malformed" };

export function noFaults(): FaultSettings {
  return {
    errorRate: 0,
    timeoutRate: 0,
    malformedRate: 0,
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
  if (settings.errorRate === 0 && settings.timeoutRate === 0 && settings.malformedRate === 0) return { kind: "none" };
  const roll = rng.next();
  if (roll < settings.errorRate) return { kind: "error", status: ([500, 502, 503] as const)[rng.int(3)] ?? 500 };
  if (roll < settings.errorRate + settings.timeoutRate) return { kind: "timeout", delayMs: settings.timeoutDelayMs };
  if (roll < settings.errorRate + settings.timeoutRate + settings.malformedRate) return { kind: "malformed" };
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
