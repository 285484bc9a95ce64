import { z } from "zod";
import { CHANGE_TYPES } from "../api/change-types.js";
import { alertsSchema } from "./schema/alerts.js";
import { durationSeconds } from "./schema/common.js";
import { rosterSchema } from "./schema/roster.js";
import { slackSchema } from "./schema/slack.js";

/**
 * The whole configuration, as one zod schema. `config/default.yaml` documents every option;
 * environment variables (docs/configuration.md) override the file. Every option has a safe default so the
 * daemon runs with only the service URL and key, the Slack token, SLACK_CHANNEL and the roster file set.
 * The larger sections have a file each under `schema/`; this file composes them and keeps every export.
 */

export { type AlertRoute, routeSchema } from "./schema/alerts.js";
export { durationSeconds } from "./schema/common.js";
export { type ColumnMapping, columnMappingSchema, DEFAULT_STATUSES, rosterSourceSchema } from "./schema/roster.js";
export { interactivitySchema } from "./schema/slack.js";
export { CHANGE_TYPES };

export const configSchema = z.strictObject({
  api: z
    .strictObject({
      /** Base URL including /api/v1. RETENTION_API_URL. */
      url: z.url({ protocol: /^https?$/ }).optional(),
      /** RETENTION_API_KEY. Prefer the environment to the file. */
      key: z.string().min(1).optional(),
      requestsPerMinute: z.number().int().min(1).max(10_000).default(120),
      /** Share of the per-minute budget kept for polling so a big reconcile never delays alerts. */
      pollingReservedShare: z.number().min(0).max(0.9).default(0.25),
      timeoutSeconds: durationSeconds.default(10),
      maxRetries: z.number().int().min(0).max(20).default(5),
    })
    .prefault({}),
  slack: slackSchema,
  state: z
    .strictObject({
      /** RETENTION_SYNC_STATE: the SQLite state database (one instance). */
      path: z.string().min(1).default("./state/retention-sync.sqlite"),
      /**
       * RETENTION_SYNC_STATE when it is a postgres:// URL: state in Postgres, shared by replicas
       * (one leader, the others standby). Wins over `path`. The password may come from PGPASSWORD.
       */
      url: z
        .string()
        .trim()
        .regex(/^postgres(ql)?:\/\/\S+$/i, "expected a URL like postgres://user@host:5432/database")
        .optional(),
    })
    .prefault({}),
  alerts: alertsSchema,
  roster: rosterSchema,
  daemon: z
    .strictObject({
      /** OPS_PORT: health and metrics server. */
      port: z.number().int().min(0).max(65_535).default(9400),
      host: z.string().default("0.0.0.0"),
      shutdownGraceSeconds: z.number().int().min(1).default(20),
    })
    .prefault({}),
  log: z
    .strictObject({
      /** LOG_LEVEL. */
      level: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    })
    .prefault({}),
});

export type ConfigInput = z.input<typeof configSchema>;
export type Config = z.infer<typeof configSchema>;
