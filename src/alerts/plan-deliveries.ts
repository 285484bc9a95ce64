import { createHash } from "node:crypto";
import type { OutboxDraft } from "../delivery/outbox.js";
import type { Coalesce } from "../delivery/outbox-sender.js";
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

/** A message of the alert flow; single alerts carry their Alert so a backlog can become a digest. */
export type AlertDraft = OutboxDraft<Alert>;

export interface DeliveryPlan {
  readonly drafts: AlertDraft[];
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

function digestDrafts(channel: string, alerts: readonly Alert[]): AlertDraft[] {
  return formatDigest(alerts).map((message, part) => ({
    id: digestId(channel, alerts, part),
    channel,
    kind: "digest",
    message,
    alertKeys: alerts.map((a) => a.key),
  }));
}

/**
 * The one place that decides digests: one channel's alerts (of a hand-over, or a backlog waiting
 * in the outbox) become one message each, or digest messages when there are more than the
 * threshold. Ids depend only on the channel and the alerts, so replaying the same batch is harmless.
 */
export function channelDrafts(
  channel: string,
  alerts: readonly Alert[],
  digestThreshold: number,
): { drafts: AlertDraft[]; digest: boolean } {
  if (shouldDigest(alerts.length, digestThreshold)) return { drafts: digestDrafts(channel, alerts), digest: true };
  return {
    digest: false,
    drafts: alerts.map((alert) => ({
      id: `a|${channel}|${alert.key}`,
      channel,
      kind: "alert",
      message: formatAlert(alert),
      alertKeys: [alert.key],
      threadKey: personKey(alert),
      alert,
    })),
  };
}

/**
 * For the sender: when more single alerts than the threshold wait for one channel (a webhook
 * burst, a backlog after a Slack outage), the digest drafts that replace them; else undefined.
 */
export function backlogDigest(digestThreshold: number): Coalesce<Alert> {
  return (channel, waiting) => {
    const alerts = waiting.flatMap((draft) => (draft.kind === "alert" && draft.alert ? [draft.alert] : []));
    if (alerts.length !== waiting.length) return undefined;
    const made = channelDrafts(channel, alerts, digestThreshold);
    return made.digest ? made.drafts : undefined;
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
  const dms: AlertDraft[] = [];
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
  const drafts: AlertDraft[] = [];
  const perChannel: Record<string, number> = {};
  const digestChannels: string[] = [];
  for (const [channel, alerts] of byChannel) {
    perChannel[channel] = alerts.length;
    const made = channelDrafts(channel, alerts, input.digestThreshold);
    if (made.digest) digestChannels.push(channel);
    drafts.push(...made.drafts);
  }
  return { drafts: [...drafts, ...dms], unrouted, perChannel, digestChannels };
}
