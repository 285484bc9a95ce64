/** The action ids of this program's interactive elements; a press of any other is not ours. */
export const ACTION_IDS = {
  ack: "rs_ack",
  snooze: "rs_snooze",
  unsnooze: "rs_unsnooze",
  untrack: "rs_untrack",
  profile: "rs_profile",
  dashboard: "rs_dashboard",
  /** The per-person overflow menu of a digest line (acknowledge, snooze 7/30/90, stop tracking…). */
  digestMenu: "rs_menu",
} as const;

/** Block ids of what this program adds to a message, so an update finds and replaces them. */
export const BLOCK_IDS = {
  actions: "rs_actions",
  ackMark: "rs_mark_ack",
  snoozeMark: "rs_mark_snooze",
  untrackMark: "rs_mark_untrack",
} as const;

export const SNOOZE_DAYS = [7, 30, 90] as const;

/** What a press asks for. */
export type ActionKind = "ack" | "snooze" | "unsnooze" | "untrack";
