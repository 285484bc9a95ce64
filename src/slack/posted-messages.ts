/**
 * What the daemon remembers of each message it posted with buttons (namespace `slack.posted`):
 * `<channel id>|<ts>` → the people the message's buttons act on. Delivery writes it in the commit
 * that marks the post sent; the buttons read it, and act only on a person recorded for the
 * message pressed, whatever the press's payload says.
 */
export const POSTED_NAMESPACE = "slack.posted";

/** How long a message's buttons keep working: a press on a message posted longer ago is ignored. */
export const POSTED_RETENTION_MS = 90 * 86_400_000;

/** The key of a message: Slack's channel id (never a name) and the message's ts. */
export function postedKey(channelId: string, ts: string): string {
  return `${channelId}|${ts}`;
}
