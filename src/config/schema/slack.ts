import { z } from "zod";
import { slackChannel } from "./common.js";

/** `slack`: the bot token, the channels, the pace of posting and the buttons (interactivity). */

const slackUserId = z.string().regex(/^[UW][A-Z0-9]{2,30}$/, "expected a Slack user id like U0123ABCD");
const slackUsergroupId = z.string().regex(/^S[A-Z0-9]{2,30}$/, "expected a Slack user group id like S0123ABCD");

/** Who may press one kind of button: Slack user ids and user groups (members read with usergroups.users.list). */
const accessRuleSchema = z
  .strictObject({
    allowedUsers: z.array(slackUserId).default([]),
    allowedUsergroups: z.array(slackUsergroupId).default([]),
  })
  .prefault({});

export const interactivitySchema = z
  .strictObject({
    /**
     * `socket` (the default when an app token is set): the daemon opens Slack's Socket Mode
     * WebSocket itself, no inbound port. `http`: Slack POSTs to `path` on the ops server, signed
     * with `signingSecret`. `off`: no buttons. Absent: socket with an app token, else off.
     */
    mode: z.enum(["socket", "http", "off"]).optional(),
    /** SLACK_SIGNING_SECRET: verifies the HTTP mode's requests. */
    signingSecret: z.string().min(1).optional(),
    /** HTTP mode: the ops server path Slack's Request URL points to. */
    path: z.string().startsWith("/").default("/slack/interactivity"),
    /** Who may press Stop tracking. Nobody until set. */
    stopTracking: accessRuleSchema,
    /** Who may press Acknowledge; anyone in the channel while both lists are empty. */
    acknowledge: accessRuleSchema,
    /** Who may Snooze and Unsnooze; anyone in the channel while both lists are empty. */
    snooze: accessRuleSchema,
    /** Who may Approve a reconcile plan held for a person (ops post). Nobody until set. */
    approveReconcile: accessRuleSchema,
  })
  .prefault({});

export const slackSchema = z
  .strictObject({
    /** SLACK_BOT_TOKEN. */
    token: z.string().min(1).optional(),
    /** SLACK_API_URL: Web API base, for the demo and tests. */
    apiUrl: z.url({ protocol: /^https?$/ }).default("https://slack.com/api/"),
    /** SLACK_CHANNEL: retention alerts no route took (all of them when there are no routes). */
    channel: slackChannel.optional(),
    /** SLACK_POACHING_CHANNEL: poaching alerts no route took; unset, only routes post that lens. */
    poachingChannel: slackChannel.optional(),
    /** SLACK_OPS_CHANNEL: reconcile reports and operational warnings. */
    opsChannel: slackChannel.optional(),
    messagesPerSecondPerChannel: z.number().positive().max(10).default(1),
    /** Posts a channel may send at once after a quiet spell, before the pace applies (Slack allows short bursts). */
    burstPerChannel: z.number().int().min(1).max(10).default(3),
    /** SLACK_APP_TOKEN: app-level token (xapp-...) with connections:write, for Socket Mode. */
    appToken: z.string().min(1).optional(),
    /** Buttons on alerts (docs/slack.md). */
    interactivity: interactivitySchema,
  })
  .prefault({});
