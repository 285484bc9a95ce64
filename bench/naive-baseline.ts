import { startEmulator } from "@retention-sync/emulator";
import {
  apiRequests,
  clearRequests,
  joinerSlug,
  profileUrl,
  type RosterShape,
  seedServiceRoster,
  serviceSlug,
} from "./roster-fixture.js";

export interface NaiveRun {
  readonly shape: RosterShape;
  readonly serverLimitPerMinute: number;
  readonly writes: number;
  /** Counted by the emulator, 429s and retries included. */
  readonly requestsUsed: number;
  readonly status429: number;
  readonly otherErrors: number;
  readonly wallMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What a hand-written script does: send, and on 429 sleep for Retry-After and send again. */
async function send(url: string, init: RequestInit): Promise<Response> {
  for (;;) {
    const response = await fetch(url, init);
    if (response.status !== 429) return response;
    await response.body?.cancel();
    const retryAfter = Number(response.headers.get("retry-after") ?? "1");
    await sleep((Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 1) * 1000);
  }
}

/**
 * The baseline: the same joiners, rehires and leavers applied with a plain fetch loop and no pacing:
 * one POST /employees per joiner and per rehire (spec 3.1: adding an archived profile revives it),
 * one DELETE per leaver. It is handed the diff for free (ids of the leavers included), so it lists
 * nothing: the best case for a script.
 */
export async function runNaive(input: { shape: RosterShape; serverLimitPerMinute: number }): Promise<NaiveRun> {
  const { shape } = input;
  const emu = await startEmulator({
    port: 0,
    seed: "empty",
    rateLimitPerMinute: input.serverLimitPerMinute,
    apiSeatsPerDay: 100_000_000,
    rowsPerDay: 100_000_000,
    importDelayMs: 0,
  });
  try {
    await seedServiceRoster(emu, shape);
    const leaverIds: number[] = [];
    for (let i = shape.size - shape.leavers; i < shape.size; i += 1) {
      const emp = emu.emulator.state.findByUrl(emu.organizationId, profileUrl(serviceSlug(i)));
      if (emp) leaverIds.push(emp.id);
    }
    await clearRequests(emu);
    const headers = { authorization: `Bearer ${emu.writeKey}`, "content-type": "application/json" };
    const adds = [
      ...Array.from({ length: shape.joiners }, (_, i) => profileUrl(joinerSlug(i))),
      ...Array.from({ length: shape.rehires }, (_, i) => profileUrl(serviceSlug(i))),
    ];
    const t0 = performance.now();
    for (const networkUrl of adds) {
      const response = await send(`${emu.baseUrl}/employees`, {
        method: "POST",
        headers,
        body: JSON.stringify({ networkUrl, tracked: true }),
      });
      await response.body?.cancel();
    }
    for (const id of leaverIds) {
      const response = await send(`${emu.baseUrl}/employees/${id}`, { method: "DELETE", headers });
      await response.body?.cancel();
    }
    const wallMs = performance.now() - t0;
    const log = await apiRequests(emu);
    return {
      shape,
      serverLimitPerMinute: input.serverLimitPerMinute,
      writes: adds.length + leaverIds.length,
      requestsUsed: log.length,
      status429: log.filter((r) => r.status === 429).length,
      otherErrors: log.filter((r) => r.status >= 400 && r.status !== 429).length,
      wallMs,
    };
  } finally {
    await emu.close();
  }
}
