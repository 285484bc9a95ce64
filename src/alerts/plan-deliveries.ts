import { createHash } from "node:crypto";
import type { RiskLevel } from "../api/spec-records.js";
import type { OutboxDraft } from "../delivery/outbox.js";
import type { Coalesce } from "../delivery/outbox-sender.js";
import { postedPeopleOf } from "../interactive/posted-people.js";
import { type Alert, effectiveScore, personKey, RISK_LEVEL_FLOOR } from "./alert.js";
import { type FormatOptions, formatAlert } from "./format-alert.js";
import { digestParts, shouldDigest } from "./format-digest.js";
import { type RoutingConfig, routerFor } from "./route-alert.js";

/** alerts.managerDm: DM the manager (HRIS email) of a person on the own roster, from a risk level up. */
export interface ManagerDmSettings {
  readonly enabled: boolean;
  /** Default high: a manager hears only of what needs a conversation (a departure reads as high). */
  readonly minRiskLevel: RiskLevel;
}

export interface PlanDeliveriesInput {
  /** The alerts of one pass (or one webhook event), oldest first. */
  readonly alerts: readonly Alert[];
  readonly routing: RoutingConfig;
  readonly digestThreshold: number;
  /** `true` is `{ enabled: true, minRiskLevel: "high" }`. */
  readonly managerDm: boolean | ManagerDmSettings;
  readonly format?: FormatOptions | undefined;
}

/** A message of the alert flow; single alerts carry their Alert so a backlog can become a digest. */
export type AlertDraft = OutboxDraft<Alert>;

export interface DeliveryPlan {
  readonly drafts: AlertDraft[];
  /** Alerts neither a route nor the catch-all (`slack.channel`) took. */
  readonly unrouted: Alert[];
  /** How many alerts no route took and the catch-all (`slack.channel`) did. */
  readonly caughtAll: number;
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

/** With buttons, the record of who they act on, kept once the message is posted (`OutboxDraft.postedRecord`). */
function buttonsRecord(carried: readonly Alert[], format: FormatOptions): Pick<AlertDraft, "postedRecord"> {
  return format.actions ? { postedRecord: postedPeopleOf(carried) } : {};
}

function digestDrafts(channel: string, alerts: readonly Alert[], format: FormatOptions): AlertDraft[] {
  return digestParts(alerts, format).map(({ message, alerts: carried }, part) => ({
    id: digestId(channel, alerts, part),
    channel,
    kind: "digest",
    message,
    alertKeys: alerts.map((a) => a.key),
    ...buttonsRecord(carried, format),
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
  format: FormatOptions = {},
): { drafts: AlertDraft[]; digest: boolean } {
  if (shouldDigest(alerts.length, digestThreshold)) {
    return { drafts: digestDrafts(channel, alerts, format), digest: true };
  }
  return {
    digest: false,
    drafts: alerts.map((alert) => ({
      id: `a|${channel}|${alert.key}`,
      channel,
      kind: "alert",
      message: formatAlert(alert, format),
      alertKeys: [alert.key],
      threadKey: personKey(alert),
      alert,
      ...buttonsRecord([alert], format),
    })),
  };
}

/**
 * For the sender: when more single alerts than the threshold wait for one channel (a webhook
 * burst, a backlog after a Slack outage), the digest drafts that replace them; else undefined.
 */
export function backlogDigest(digestThreshold: number, format: FormatOptions = {}): Coalesce<Alert> {
  return {
    // Counted before anything is read or formatted: most backlogs are a few singles that stay as they are.
    considers: (count) => shouldDigest(count, digestThreshold),
    digest: (channel, waiting) => {
      const alerts = waiting.flatMap((draft) => (draft.kind === "alert" && draft.alert ? [draft.alert] : []));
      if (alerts.length !== waiting.length || !shouldDigest(alerts.length, digestThreshold)) return undefined;
      const made = channelDrafts(channel, alerts, digestThreshold, format);
      return made.digest ? made.drafts : undefined;
    },
  };
}

/** Whether the manager of this alert's person gets a DM. */
function wantsManagerDm(alert: Alert, settings: boolean | ManagerDmSettings): boolean {
  const dm: ManagerDmSettings = typeof settings === "boolean" ? { enabled: settings, minRiskLevel: "high" } : settings;
  return dm.enabled && alert.lens.kind === "retention" && effectiveScore(alert) >= RISK_LEVEL_FLOOR[dm.minRiskLevel];
}

/**
 * Turns one pass of alerts into outbox drafts: each alert to every channel its routes choose (or
 * to the catch-all), one message each, or digest messages for a channel that got more than the
 * threshold; plus optional manager DMs from their risk level up. Draft ids are deterministic so a
 * replayed pass enqueues nothing new.
 */
export function planDeliveries(input: PlanDeliveriesInput): DeliveryPlan {
  const router = routerFor(input.routing);
  const format = input.format ?? {};
  const byChannel = new Map<string, Alert[]>();
  const unrouted: Alert[] = [];
  const dms: AlertDraft[] = [];
  let caughtAll = 0;
  for (const alert of input.alerts) {
    const decision = router.route(alert);
    if (decision.matches.length === 0) {
      unrouted.push(alert);
      continue;
    }
    if (decision.caughtAll) caughtAll += 1;
    for (const { channel } of decision.matches) {
      const list = byChannel.get(channel) ?? [];
      list.push(alert);
      byChannel.set(channel, list);
    }
    const email = alert.person.managerEmail?.trim().toLowerCase();
    if (email && wantsManagerDm(alert, input.managerDm)) {
      dms.push({
        id: `m|${email}|${alert.key}`,
        channel: `dm:${email}`,
        kind: "dm",
        managerEmail: email,
        message: formatAlert(alert, format),
        alertKeys: [alert.key],
        ...buttonsRecord([alert], format),
      });
    }
  }
  const drafts: AlertDraft[] = [];
  const perChannel: Record<string, number> = {};
  const digestChannels: string[] = [];
  for (const [channel, alerts] of byChannel) {
    perChannel[channel] = alerts.length;
    const made = channelDrafts(channel, alerts, input.digestThreshold, format);
    if (made.digest) digestChannels.push(channel);
    drafts.push(...made.drafts);
  }
  return { drafts: [...drafts, ...dms], unrouted, caughtAll, perChannel, digestChannels };
}
