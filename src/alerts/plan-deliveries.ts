import { createHash } from "node:crypto";
import type { OutboxDraft } from "../slack/outbox.js";
import { type Alert, personKey } from "./alert.js";
import { formatAlert } from "./format-alert.js";
import { formatDigest, shouldDigest } from "./format-digest.js";
import { type RoutingConfig, routeAlert } from "./route-alert.js";

export interface PlanDeliveriesInput {
  /** The alerts of one pass (or one webhook event), oldest first. */
  readonly alerts: readonly Alert[];
  readonly routing: RoutingConfig;
  readonly digestThreshold: number;
  /** alerts.managerDm.enabled: also DM the manager (HRIS email) of a person on the own roster. */
  readonly managerDm: boolean;
}

export interface DeliveryPlan {
  readonly drafts: OutboxDraft[];
  /** Alerts no route wanted. */
  readonly unrouted: Alert[];
  /** Alerts per channel, for the pass report. */
  readonly perChannel: Record<string, number>;
  /** Channels whose burst became a digest. */
  readonly digestChannels: string[];
}

function digestId(channel: string, alerts: readonly Alert[], part: number): string {
  const hash = createHash("sha256")
    .update(alerts.map((a) => a.key).join(","))
    .digest("hex")
    .slice(0, 20);
  return `d|${channel}|${hash}|${part}`;
}

/** The digest messages of one channel's alerts; ids depend only on the channel and the alerts. */
export function digestDrafts(channel: string, alerts: readonly Alert[]): OutboxDraft[] {
  return formatDigest(alerts).map((message, part) => ({
    id: digestId(channel, alerts, part),
    channel,
    kind: "digest",
    message,
    alertKeys: alerts.map((a) => a.key),
  }));
}

/**
 * For the sender: when more single alerts than the threshold wait for one channel (a webhook
 * burst, a backlog after a Slack outage), the digest drafts that replace them; else undefined.
 */
export function backlogDigest(
  digestThreshold: number,
): (channel: string, waiting: readonly OutboxDraft[]) => OutboxDraft[] | undefined {
  return (channel, waiting) => {
    const alerts = waiting.flatMap((draft) => (draft.kind === "alert" && draft.alert ? [draft.alert] : []));
    if (alerts.length !== waiting.length || !shouldDigest(alerts.length, digestThreshold)) return undefined;
    return digestDrafts(channel, alerts);
  };
}

/**
 * Turns one pass of alerts into outbox drafts: each alert to every channel its routes choose,
 * one message each, or digest messages for a channel that got more than the threshold; plus
 * optional manager DMs. Draft ids are deterministic so a replayed pass enqueues nothing new.
 */
export function planDeliveries(input: PlanDeliveriesInput): DeliveryPlan {
  const byChannel = new Map<string, Alert[]>();
  const unrouted: Alert[] = [];
  const dms: OutboxDraft[] = [];
  for (const alert of input.alerts) {
    const matches = routeAlert(alert, input.routing);
    if (matches.length === 0) {
      unrouted.push(alert);
      continue;
    }
    for (const { channel } of matches) {
      const list = byChannel.get(channel) ?? [];
      list.push(alert);
      byChannel.set(channel, list);
    }
    const email = alert.person.managerEmail?.trim().toLowerCase();
    if (input.managerDm && alert.lens.kind === "retention" && email) {
      dms.push({
        id: `m|${email}|${alert.key}`,
        channel: `dm:${email}`,
        kind: "dm",
        managerEmail: email,
        message: formatAlert(alert),
        alertKeys: [alert.key],
      });
    }
  }
  const drafts: OutboxDraft[] = [];
  const perChannel: Record<string, number> = {};
  const digestChannels: string[] = [];
  for (const [channel, alerts] of byChannel) {
    perChannel[channel] = alerts.length;
    if (shouldDigest(alerts.length, input.digestThreshold)) {
      digestChannels.push(channel);
      drafts.push(...digestDrafts(channel, alerts));
      continue;
    }
    for (const alert of alerts) {
      drafts.push({
        id: `a|${channel}|${alert.key}`,
        channel,
        kind: "alert",
        message: formatAlert(alert),
        alertKeys: [alert.key],
        threadKey: personKey(alert),
        alert,
      });
    }
  }
  return { drafts: [...drafts, ...dms], unrouted, perChannel, digestChannels };
}
