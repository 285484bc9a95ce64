/**
 * Vitest-friendly access to the emulator: `useEmulator()` starts one per test file (closed after
 * all tests), and `EmulatorControl` wraps the `/_emulator/*` control API over real HTTP.
 */

import {
  type EmulatorHandle,
  type EmulatorOptions,
  type RequestLogEntry,
  startEmulator,
} from "@retention-sync/emulator";
import { afterAll, beforeAll } from "vitest";
import { registerSecret } from "./known-secrets.js";
import { beforeAuditScan } from "./log-audit.js";

export type { EmulatorHandle, EmulatorOptions, RequestLogEntry };

export interface CreatedKey {
  id: string;
  key: string;
  scopes: string[];
  organizationId: number;
  revoked: boolean;
}

export interface GeneratedChange {
  id: number;
  organizationId: number;
  employeeId: number;
  changeType: string;
  riskScore: number | null;
  riskLevel: string;
  detectedAt: string;
  [field: string]: unknown;
}

/** Typed client of the control API. */
export class EmulatorControl {
  constructor(readonly url: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.url}/_emulator/${path}`, {
      method,
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`control ${method} /_emulator/${path}: HTTP ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }

  async createKey(
    input: { scopes?: ("read" | "write")[]; organizationId?: number; revoked?: boolean } = {},
  ): Promise<CreatedKey> {
    const created = await this.call<CreatedKey>("POST", "keys", input);
    registerSecret(created.key, "emulator key created through the control API");
    return created;
  }

  revokeKey(key: string): Promise<CreatedKey> {
    return this.call("POST", "keys", { key, revoked: true });
  }

  advanceClock(seconds: number): Promise<{ now: string; offsetSeconds: number }> {
    return this.call("POST", "clock", { advanceSeconds: seconds });
  }

  billing(input: {
    status?: "active" | "trialing" | "past_due" | "canceled" | "none";
    chargeFails?: boolean | "retryable";
    trial?: boolean;
    trialDaysLeft?: number;
    apiSeatsPerDay?: number;
    rowsPerDay?: number;
  }): Promise<Record<string, unknown>> {
    return this.call("POST", "billing", input);
  }

  async signals(
    input: {
      count?: number;
      organizationId?: number;
      employeeId?: number;
      changeType?: string;
      riskScore?: number;
    } = {},
  ): Promise<GeneratedChange[]> {
    return (await this.call<{ changes: GeneratedChange[] }>("POST", "signals", input)).changes;
  }

  faults(input: {
    errorRate?: number;
    timeoutRate?: number;
    malformedRate?: number;
    lostResponseRate?: number;
    statuses?: number[];
    timeoutDelayMs?: number;
    latencyMs?: number;
  }): Promise<Record<string, unknown>> {
    return this.call("POST", "faults", input);
  }

  clearFaults(): Promise<Record<string, unknown>> {
    return this.faults({
      errorRate: 0,
      timeoutRate: 0,
      malformedRate: 0,
      lostResponseRate: 0,
      statuses: [],
      latencyMs: 0,
    });
  }

  state(summary = false): Promise<Record<string, unknown>> {
    return this.call("GET", summary ? "state?summary=true" : "state");
  }

  async requests(): Promise<RequestLogEntry[]> {
    return (await this.call<{ requests: RequestLogEntry[] }>("GET", "requests")).requests;
  }

  clearRequests(): Promise<unknown> {
    return this.call("DELETE", "requests");
  }

  /** Seeds `count` people directly (no allowances), for large-roster tests and benchmarks. */
  seedPeople(input: {
    count: number;
    organizationId?: number;
    tracked?: boolean;
    slugPrefix?: string;
  }): Promise<{ employeeCount: number }> {
    return this.call("POST", "employees", input);
  }

  /** The dashboard's send-test button: one signed `ping` to the endpoint, attempted before the answer. */
  pingWebhook(id: string): Promise<{ health: Record<string, unknown> | null }> {
    return this.call("POST", `webhooks/${encodeURIComponent(id)}/ping`);
  }

  /** Registers the signing secret of every webhook endpoint with the log audit. */
  async harvestWebhookSecrets(): Promise<void> {
    const { webhooks } = await this.state(true);
    if (!Array.isArray(webhooks)) return;
    for (const endpoint of webhooks as unknown[]) {
      if (typeof endpoint === "object" && endpoint !== null && "secret" in endpoint) {
        registerSecret(typeof endpoint.secret === "string" ? endpoint.secret : undefined, "emulator webhook secret");
      }
    }
  }

  async reset(): Promise<unknown> {
    // A reset drops the webhooks: their secrets must be known before they are gone.
    await this.harvestWebhookSecrets();
    return this.call("POST", "reset");
  }
}

export interface TestEmulator extends EmulatorHandle {
  control: EmulatorControl;
}

/**
 * Starts an emulator (silent, import delay 0 by default) with its control client. Its keys and,
 * when it closes (or the test file ends), its webhook secrets are known to the log audit.
 */
export async function startTestEmulator(options: EmulatorOptions = {}): Promise<TestEmulator> {
  const handle = await startEmulator({ importDelayMs: 0, ...options });
  registerSecret(handle.writeKey, "emulator write key");
  registerSecret(handle.readKey, "emulator read key");
  const control = new EmulatorControl(handle.url);
  const harvest = () => control.harvestWebhookSecrets();
  const forget = beforeAuditScan(harvest);
  const close = handle.close.bind(handle);
  return Object.assign(handle, {
    control,
    async close() {
      forget();
      await harvest().catch(() => undefined);
      await close();
    },
  });
}

/**
 * One emulator per test file: returns a getter valid inside tests. Reset it in `beforeEach`
 * with `emulator().control.reset()` when tests must not see each other's changes.
 */
export function useEmulator(options: EmulatorOptions = {}): () => TestEmulator {
  let current: TestEmulator | undefined;
  beforeAll(async () => {
    current = await startTestEmulator(options);
  });
  afterAll(async () => {
    await current?.close();
  });
  return () => {
    if (!current) throw new Error("useEmulator(): the emulator is only available inside tests");
    return current;
  };
}
