import type { CommandIO } from "../commands/command-io.js";
import type { Config } from "../config/schema.js";
import { openStateStoreReadOnly } from "../store/state-store.js";
import { readStoredStatus, type StoredStatus } from "./stored-status.js";

/** What only the running daemon knows, from its ops server's /readyz. */
export type LiveStatus =
  | {
      readonly reachable: true;
      readonly url: string;
      readonly ready: boolean;
      readonly reason: string;
      readonly role?: string;
      /** `needs operator: ...` lines. */
      readonly notes: readonly string[];
      /** The Slack Socket Mode state (`connected`, `reconnecting`, `disconnected`); absent when off. */
      readonly socket?: string;
    }
  | { readonly reachable: false; readonly url: string; readonly problem: string };

export interface DaemonStatus extends StoredStatus {
  readonly checkedAt: string;
  readonly live: LiveStatus;
  /** Everything that needs a person, from the store and the live daemon, each once. */
  readonly needsOperator: readonly string[];
}

/** How long the ops server may take to answer: it answers at once, or is not the daemon's. */
const LIVE_TIMEOUT_MS = 3_000;

/** The ops server's address as seen from this machine: loopback unless the daemon binds one address. */
function opsUrl(config: Config): string {
  const host = config.daemon.host;
  const anyAddress = host === "0.0.0.0" || host === "::" || host === "localhost";
  const where = anyAddress ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return `http://${where}:${config.daemon.port}`;
}

/** Parses /readyz's text: `ready: reason` or `not ready: reason`, then `role: ...`, then notes. */
export function parseReadyz(url: string, status: number, body: string): LiveStatus {
  const [first = "", ...rest] = body.split("\n").filter((line) => line.length > 0);
  const ready = status === 200 && first.startsWith("ready:");
  const reason = first.replace(/^(not )?ready: /, "");
  const role = rest.find((line) => line.startsWith("role: "))?.slice("role: ".length);
  const socket = rest.find((line) => line.startsWith("slack socket mode: "))?.slice("slack socket mode: ".length);
  const notes = rest.filter((line) => line.startsWith("needs operator: "));
  return {
    reachable: true,
    url,
    ready,
    reason,
    ...(role === undefined ? {} : { role }),
    notes,
    ...(socket === undefined ? {} : { socket }),
  };
}

async function readLive(config: Config): Promise<LiveStatus> {
  const url = opsUrl(config);
  try {
    const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(LIVE_TIMEOUT_MS) });
    return parseReadyz(url, response.status, await response.text());
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    return { reachable: false, url, problem: cause };
  }
}

/** The needs-a-person list: the store's findings first, then the daemon's own notes not already said. */
function needsOperator(stored: StoredStatus, live: LiveStatus): string[] {
  const out: string[] = [];
  for (const backlog of stored.outbox) {
    if (backlog.fix) {
      out.push(
        `Slack refuses posts to ${backlog.channel} (${backlog.lastError}); ${backlog.waiting} wait: ${backlog.fix}`,
      );
    }
  }
  const run = stored.reconcile;
  if (run && run.outcome !== "routine") {
    const what = run.outcome === "failed" ? "failed" : "needs attention";
    out.push(`the last reconcile (${run.finishedAt}) ${what}: ${run.attention.join("; ")}`);
  }
  if (stored.roster?.stale) {
    out.push(
      `the roster export is stale: no fresh export within roster.staleAfter (${Math.round(stored.roster.staleAfterSeconds / 86_400)} days) from ${stored.roster.source}`,
    );
  }
  if (live.reachable) {
    if (!live.ready) out.push(`the daemon is not ready: ${live.reason}`);
    // The daemon's notes say the same channels in its own words: one line per topic is enough.
    const said = (note: string) => stored.outbox.some((b) => b.fix && note.includes(`posts to ${b.channel} (`));
    for (const note of live.notes) if (!said(note)) out.push(note.replace(/^needs operator: /, ""));
  }
  return out;
}

/**
 * The daemon's state for `status`: the store, opened read-only (no lock taken, nothing written),
 * and, when the ops server answers on daemon.port, what only the running process knows.
 */
export async function daemonStatus(
  config: Config,
  io: Pick<CommandIO, "env">,
  now = new Date(),
): Promise<DaemonStatus> {
  const store = await openStateStoreReadOnly(config.state.url ?? config.state.path, { password: io.env.PGPASSWORD });
  let stored: StoredStatus;
  try {
    stored = await readStoredStatus(store, config, now.getTime());
  } finally {
    await store.close();
  }
  const live = await readLive(config);
  return { ...stored, checkedAt: now.toISOString(), live, needsOperator: needsOperator(stored, live) };
}
