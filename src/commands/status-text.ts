import type { DaemonStatus } from "../app/daemon-status.js";

/** A duration a person reads at a glance: 42 s, 5 min, 3 h, 2 d. */
export function roughly(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7_200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3_600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
}

const since = (iso: string, nowMs: number) =>
  `${iso} (${roughly(Math.max(0, Math.round((nowMs - Date.parse(iso)) / 1000)))} ago)`;

/** Label column, then the lines of one part; continuation lines are indented under the text. */
function part(label: string, lines: readonly string[]): string[] {
  const pad = " ".repeat(12);
  return lines.map((line, i) => `${i === 0 ? label.padEnd(12) : pad}${line}`);
}

function leaderLines(status: DaemonStatus, nowMs: number): string[] {
  const lines: string[] = [];
  const { leader, lock } = status;
  if (leader) {
    const term = leader.epoch === undefined ? "" : `, term ${leader.epoch}`;
    lines.push(`last term began ${since(leader.since, nowMs)}: ${leader.host} pid ${leader.pid}${term}`);
  } else {
    lines.push("no term recorded yet");
  }
  if (lock) {
    const held = lock.held ? "held" : "expired (no daemon holds it)";
    lines.push(`instance lock ${held}: ${lock.host} pid ${lock.pid}, renewed ${since(lock.renewedAt, nowMs)}`);
  } else if (status.engine === "sqlite") {
    lines.push("instance lock free: no daemon runs on this state");
  }
  if (status.heartbeatAt) lines.push(`last heartbeat ${since(status.heartbeatAt, nowMs)}`);
  return lines;
}

function lensLines(status: DaemonStatus): string[] {
  if (status.lenses.length === 0) return ["no lens read yet"];
  return status.lenses.map((l) => `${l.lens}: read up to ${l.cursor} (${roughly(l.ageSeconds)} ago)`);
}

function outboxLines(status: DaemonStatus): string[] {
  if (status.outbox.length === 0) return ["empty"];
  return status.outbox.map((b) => {
    const error = b.lastError === undefined ? "" : `; last error ${b.lastError}`;
    return `${b.channel}: ${b.waiting} waiting, oldest ${roughly(b.oldestAgeSeconds)}${error}`;
  });
}

function reconcileLines(status: DaemonStatus): string[] {
  const run = status.reconcile;
  if (!run) return ["no run recorded yet"];
  const lines = [`${run.finishedAt}: ${run.outcome}`];
  if (run.guardHeld !== undefined) lines.push(`mass-archive guard holds ${run.guardHeld} archive(s)`);
  const deferred = Object.entries(run.deferred ?? {});
  if (deferred.length > 0) lines.push(`deferred adds: ${deferred.map(([why, n]) => `${why} ${n}`).join(", ")}`);
  if (run.outcome !== "routine") lines.push(...run.attention.map((a) => `- ${a}`));
  return lines;
}

function rosterLines(status: DaemonStatus, nowMs: number): string[] {
  const roster = status.roster;
  if (!roster) return ["reconciliation off"];
  const lines = [roster.source];
  lines.push(
    roster.lastCompleteAt === undefined
      ? "no complete read recorded yet"
      : `last complete read ${since(roster.lastCompleteAt, nowMs)}`,
  );
  if (roster.ageSeconds !== undefined) {
    const limit = roster.staleAfterSeconds > 0 ? ` (roster.staleAfter ${roughly(roster.staleAfterSeconds)})` : "";
    lines.push(`export ${roughly(roster.ageSeconds)} old${limit}: ${roster.stale ? "stale" : "fresh"}`);
  }
  return lines;
}

function liveLines(status: DaemonStatus): string[] {
  const { live } = status;
  const where = live.url.replace(/^http:\/\//, "");
  if (!live.reachable)
    return [`daemon not reachable on ${where} (${live.problem}): the lines above are from the store alone`];
  const lines = [`from the daemon on ${where}: ${live.ready ? "ready" : "NOT READY"}: ${live.reason}`];
  if (live.role) lines.push(`role: ${live.role}`);
  if (live.socket) lines.push(`slack socket mode: ${live.socket}`);
  return lines;
}

/** The one screen of `status`. */
export function renderStatus(status: DaemonStatus): string {
  const nowMs = Date.parse(status.checkedAt);
  const needs = status.needsOperator.length === 0 ? ["nothing"] : status.needsOperator.map((note) => `- ${note}`);
  return [
    `retention-sync status at ${status.checkedAt}, state ${status.state}`,
    "",
    ...part("Leader", leaderLines(status, nowMs)),
    ...part("Lenses", lensLines(status)),
    ...part("Outbox", outboxLines(status)),
    ...part("Reconcile", reconcileLines(status)),
    ...part("Roster", rosterLines(status, nowMs)),
    ...part("Live", liveLines(status)),
    "",
    ...part("Needs you", needs),
    "",
  ].join("\n");
}
