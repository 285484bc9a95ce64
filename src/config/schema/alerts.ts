import { z } from "zod";
import { CHANGE_TYPES } from "../../api/change-types.js";
import { durationSeconds, riskLevel, slackChannel } from "./common.js";

/** `alerts`: polling, the webhook receiver, dedupe, the routes to Slack channels and the manager DMs. */

/** https, or plain http on 127.0.0.1 (the emulator's --allow-loopback-webhooks). Other shapes are z.url's to report. */
function httpsOrEmulator(url: string): boolean {
  if (!URL.canParse(url)) return true;
  const { protocol, hostname } = new URL(url);
  return protocol !== "http:" || hostname === "127.0.0.1";
}

const changeType = z.enum(CHANGE_TYPES);
const nextStepKey = z.enum([...CHANGE_TYPES, "default"]);

export const routeSchema = z.strictObject({
  /** Shown in logs and metrics. */
  name: z.string().min(1).optional(),
  lens: z.enum(["retention", "poaching", "both"]).default("both"),
  minRiskScore: z.number().min(0).max(1).optional(),
  minRiskLevel: riskLevel.optional(),
  changeTypes: z.array(changeType).optional(),
  departments: z.array(z.string().min(1)).optional(),
  locations: z.array(z.string().min(1)).optional(),
  competitorIds: z.array(z.number().int().positive()).optional(),
  channel: slackChannel,
  /**
   * Like Alertmanager's `continue`, but true by default: after this route matches, later routes are
   * still tried (several routes can match). `false` stops at this route when it matches. Absent
   * means true.
   */
  continue: z.boolean().optional(),
});
export type AlertRoute = z.infer<typeof routeSchema>;

export const alertsSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    pollInterval: durationSeconds.default(60),
    /** Poll interval used as a backstop while the webhook receiver is on. */
    backstopPollInterval: durationSeconds.default(900),
    /** First run with no cursor starts this far back, never the whole history. */
    initialLookback: durationSeconds.default(86_400),
    /** More alerts than this for one channel in one pass become one digest message. */
    digestThreshold: z.number().int().min(1).default(10),
    /** How long delivered change ids are remembered for dedupe. */
    dedupeRetention: durationSeconds.default(30 * 86_400),
    /** Dashboard base URL used for links when a change carries none. */
    dashboardUrl: z.url().optional(),
    /**
     * Each pass re-reads this much before the cursor, so a change the service shows late (dated
     * before the cursor) is still read; handled changes are dropped by id.
     */
    cursorOverlap: durationSeconds.default(600),
    routes: z.array(routeSchema).default([]),
    /** The suggested next step of an alert, per lens and change type (`default` for the rest); "" shows none. */
    nextSteps: z
      .strictObject({
        retention: z.partialRecord(nextStepKey, z.string().max(500)).default({}),
        poaching: z.partialRecord(nextStepKey, z.string().max(500)).default({}),
      })
      .prefault({}),
    managerDm: z
      .strictObject({
        enabled: z.boolean().default(false),
        /** Only alerts at this risk level or above reach the manager (a departure reads as high). */
        minRiskLevel: riskLevel.default("high"),
      })
      .prefault({}),
    webhook: z
      .strictObject({
        enabled: z.boolean().default(false),
        host: z.string().default("0.0.0.0"),
        /** 0 picks a free port (tests). */
        port: z.number().int().min(0).max(65_535).default(9401),
        path: z.string().startsWith("/").default("/webhooks/retention"),
        /**
         * The public HTTPS URL the service delivers to (the proxy in front of the receiver): `check`
         * looks for an endpoint registered at it, `webhooks register` uses it when --url is absent.
         */
        publicUrl: z
          .url({
            protocol: /^https?$/,
            error: "expected the public HTTPS URL, e.g. https://hooks.example.com/webhooks/retention",
          })
          .refine(httpsOrEmulator, "must be an https:// URL (http:// only for 127.0.0.1, the local emulator)")
          .optional(),
        /** RETENTION_WEBHOOK_SECRETS (comma-separated): several during a rotation. */
        secrets: z.array(z.string().min(1)).default([]),
        toleranceSeconds: z.number().int().min(1).default(300),
        /** Connections held at once; more are closed when accepted (config/default.yaml says how to size it). */
        maxConnections: z.number().int().min(1).max(100_000).default(1_000),
      })
      .prefault({}),
  })
  .superRefine((alerts, ctx) => {
    // A delivery is accepted while its signature is within the tolerance; its id must be
    // remembered at least that long, or a replay after the id expired is posted again.
    if (alerts.dedupeRetention < alerts.webhook.toleranceSeconds) {
      ctx.addIssue({
        code: "custom",
        path: ["dedupeRetention"],
        message:
          `alerts.dedupeRetention (${alerts.dedupeRetention} s) must be at least alerts.webhook.toleranceSeconds ` +
          `(${alerts.webhook.toleranceSeconds} s): a webhook delivery replayed after its id is forgotten but within ` +
          "the signature tolerance would be posted again. Raise dedupeRetention (default 30d) or lower toleranceSeconds",
      });
    }
  })
  .prefault({});
