import { isPlanEntry, type JournalEntry, type JournaledPress } from "./action-journal.js";

/** One journaled press as `retention-sync actions` shows it. */
export interface ActionRow {
  readonly at: string;
  readonly user: string;
  readonly action: string;
  readonly person: string;
  readonly change: string;
  readonly outcome: string;
  readonly detail?: string | undefined;
}

/** An Approve of a held reconcile plan: the plan in the person column, no change. */
function planRow(entry: JournalEntry<JournaledPress>, planId: string): ActionRow {
  const { press } = entry;
  return {
    at: entry.journaledAt,
    user: press.userName ? `${press.userName} (${press.userId})` : press.userId,
    action: "approve reconcile",
    person: `plan ${planId}`,
    change: "-",
    outcome: entry.outcome,
    ...(entry.detail ? { detail: entry.detail } : {}),
  };
}

export function actionRows(entries: ReadonlyArray<JournalEntry<JournaledPress>>, sinceMs: number): ActionRow[] {
  return entries
    .filter((entry) => Date.parse(entry.journaledAt) >= sinceMs)
    .map((entry) => {
      if (isPlanEntry(entry)) return planRow(entry, entry.press.planId);
      const { press } = entry as JournalEntry;
      const person = press.target.name ? `${press.target.name} (${press.target.personRef})` : press.target.personRef;
      return {
        at: entry.journaledAt,
        user: press.userName ? `${press.userName} (${press.userId})` : press.userId,
        action: press.kind === "snooze" ? `snooze ${press.days ?? "?"}d` : press.kind,
        person,
        change: press.target.changeKey,
        outcome: entry.outcome,
        ...(entry.detail ? { detail: entry.detail } : {}),
      };
    });
}

/** A plain table, one press a line, oldest first. */
export function renderActionRows(rows: readonly ActionRow[]): string {
  if (rows.length === 0) return "no button presses in this period\n";
  const head = ["time", "user", "action", "person", "change", "outcome"];
  const cells = rows.map((r) => [
    r.at,
    r.user,
    r.action,
    r.person,
    r.change,
    r.detail ? `${r.outcome}: ${r.detail}` : r.outcome,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? "").length)));
  const line = (c: readonly string[]) =>
    c
      .map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return `${[line(head), ...cells.map(line)].join("\n")}\n`;
}
