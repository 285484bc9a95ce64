import { validate as isValidCron } from "node-cron";
import { z } from "zod";
import { CHANGE_TYPES } from "../api/change-types.js";
import { RISK_LEVELS } from "../api/spec-records.js";
import { parsePath } from "../roster/mapping/field-path.js";
import { MAPPING_NAMES } from "../roster/presets/names.js";

/**
 * The whole configuration, as one zod schema. `config/default.yaml` documents every option;
 * environment variables (docs/configuration.md) override the file. Every option has a safe default so the
 * daemon runs with only the service URL and key, the Slack token, SLACK_CHANNEL and the roster file set.
 */

const DURATION_UNITS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };

/** A duration as seconds: a number of seconds, or a string like `90s`, `5m`, `24h`, `7d`. */
export const durationSeconds = z.union([z.number().nonnegative(), z.string()]).transform((value, ctx) => {
  if (typeof value === "number") return value;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(value);
  if (!match) {
    ctx.addIssue({ code: "custom", message: `expected a duration such as 90s, 5m, 24h or 7d, got "${value}"` });
    return z.NEVER;
  }
  return Number(match[1]) * (DURATION_UNITS[match[2] ?? "s"] ?? 1);
});

function isKnownTimezone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const riskLevel = z.enum(RISK_LEVELS);

/** https, or plain http on 127.0.0.1 (the emulator's --allow-loopback-webhooks). Other shapes are z.url's to report. */
function httpsOrEmulator(url: string): boolean {
  if (!URL.canParse(url)) return true;
  const { protocol, hostname } = new URL(url);
  return protocol !== "http:" || hostname === "127.0.0.1";
}

/**
 * Statuses in scope by default: BambooHR's "Status" (Active) and "Employment Status" (Full-Time,
 * Part-Time), Workday's worker statuses (Active, On Leave) and worker type (Employee), and the
 * generic ones. Vendor codes are read as these words by their presets (`SALARIED_FT` is full-time).
 */
export const DEFAULT_STATUSES = [
  "active",
  "employed",
  "employee",
  "regular",
  "permanent",
  "full-time",
  "part-time",
  "on leave",
  "leave",
  "leave of absence",
];

export { CHANGE_TYPES };

const changeType = z.enum(CHANGE_TYPES);
const nextStepKey = z.enum([...CHANGE_TYPES, "default"]);

const slackChannel = z
  .string()
  .min(1)
  .regex(/^[#@]?[A-Za-z0-9._-]+$/, "expected a channel name like #hr-alerts or a channel id like C0123456789");

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

/**
 * A path (docs/roster.md "Paths"), checked here so that a typo fails at start; `*` only in
 * roster.records. A mapping entry may also be a CSV header ("Employee No."), so only an entry with
 * brackets, which no header needs, must parse as a path.
 */
function pathText(allowAny: boolean) {
  return z
    .string()
    .min(1)
    .superRefine((path, ctx) => {
      if (!allowAny && !/[[\]]/.test(path)) return;
      try {
        parsePath(path, { allowAny });
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
      }
    });
}
/** Mapping entries: CSV header names or JSON paths. */
const entries = z.array(pathText(false));

export const columnMappingSchema = z
  .strictObject({
    /** A preset the fields below override (each field listed replaces the preset's list). */
    preset: z.enum(MAPPING_NAMES).optional(),
    profileUrl: entries.min(1).optional(),
    employeeId: entries.optional(),
    name: entries.optional(),
    firstName: entries.optional(),
    lastName: entries.optional(),
    email: entries.optional(),
    department: entries.optional(),
    title: entries.optional(),
    location: entries.optional(),
    managerEmail: entries.optional(),
    status: entries.optional(),
    employmentStatus: entries.optional(),
    left: entries.optional(),
    terminationDate: entries.optional(),
  })
  .refine((mapping) => mapping.preset !== undefined || mapping.profileUrl !== undefined, {
    message: "an explicit mapping needs profileUrl (or a preset to start from: { preset: auto, ... })",
    path: ["profileUrl"],
  });
export type ColumnMapping = z.infer<typeof columnMappingSchema>;

/** An HRIS address: HTTPS, or plain HTTP to this machine only (local fakes and tests). */
const pullUrl = z
  .url({ protocol: /^https?$/ })
  .refine(
    (text) => text.startsWith("https:") || /^http:\/\/(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?(\/|$)/i.test(text),
    "expected an https:// URL (plain http:// only to this machine, for a local fake)",
  );

/** What every pull source shares: how long a request may take, and how large an export may be. */
const pullLimits = {
  /** Per request: until the answer starts, and between two parts of it (0 would mean never: refused). */
  timeoutSeconds: durationSeconds.pipe(z.number().positive("expected a time above 0, e.g. 60 or 2m")).default(60),
  /** The largest export (or page) read; a larger one fails the pull. */
  maxBytes: z
    .number()
    .int()
    .min(1024)
    .default(512 * 1024 * 1024),
};

/**
 * `roster.source`: where the export comes from. `file` reads `roster.file`; the others pull it.
 * Secrets come from the environment variables named in config/default.yaml, else from here.
 */
export const rosterSourceSchema = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("file") }),
    z.strictObject({
      type: z.literal("https"),
      url: pullUrl,
      username: z.string().min(1).optional(),
      /** HRIS_PASSWORD. */
      password: z.string().min(1).optional(),
      /** HRIS_TOKEN: sent as a Bearer token instead of Basic auth. */
      token: z.string().min(1).optional(),
      format: z.enum(["auto", "json", "csv"]).default("auto"),
      ...pullLimits,
    }),
    z.strictObject({
      type: z.literal("bamboohr"),
      companyDomain: z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9-]*$/, "expected the company's BambooHR subdomain, e.g. acme"),
      /** BAMBOOHR_API_KEY. */
      apiKey: z.string().min(1).optional(),
      baseUrl: pullUrl.default("https://api.bamboohr.com"),
      /** Fields requested beyond the ones always requested (profile URL, names, statuses...). */
      fields: z.array(z.string().min(1)).default([]),
      ...pullLimits,
    }),
    z.strictObject({
      type: z.literal("merge"),
      /** MERGE_API_KEY. */
      apiKey: z.string().min(1).optional(),
      /** MERGE_ACCOUNT_TOKEN. */
      accountToken: z.string().min(1).optional(),
      baseUrl: pullUrl.default("https://api.merge.dev"),
      ...pullLimits,
    }),
    z.strictObject({
      type: z.literal("sftp"),
      host: z.string().min(1),
      port: z.number().int().min(1).max(65_535).default(22),
      username: z.string().min(1),
      privateKeyFile: z.string().min(1).optional(),
      /** SFTP_PASSWORD. */
      password: z.string().min(1).optional(),
      /** The server's key fingerprint as `ssh-keygen -l` prints it; never trusted on first use. */
      hostKey: z
        .string()
        .regex(/^SHA256:[A-Za-z0-9+/]{43}=?$/, "expected SHA256:<base64>, as ssh-keygen -l -f <key> prints it"),
      /** A directory and a file name pattern (`/exports/workers-*.csv`): the newest match wins. */
      path: z.string().min(1),
      format: z.enum(["auto", "csv", "json", "ndjson"]).default("auto"),
      /** When set, a file is read only once a file of its name plus this suffix (`.done`) exists. */
      doneMarker: z.string().min(1).optional(),
      ...pullLimits,
    }),
  ])
  .default({ type: "file" });

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
  slack: z
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
    .prefault({}),
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
  alerts: z
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
    .prefault({}),
  roster: z
    .strictObject({
      /** Off when no file is configured. */
      enabled: z.boolean().default(true),
      /** HRIS_ROSTER_FILE. */
      file: z.string().min(1).optional(),
      /** Where the export comes from: the file above (default), or pulled from the HRIS. */
      source: rosterSourceSchema,
      format: z.enum(["auto", "csv", "json", "ndjson"]).default("auto"),
      /** `auto` (recognise the vendor), a preset name, or fields (with an optional preset they override). */
      mapping: z.union([z.enum(MAPPING_NAMES), columnMappingSchema]).default("auto"),
      /** Where the records are inside a JSON document (`d.results`, `responses.*.body`); found when unset. */
      records: pathText(true).optional(),
      /**
       * Columns (or JSON paths) that look like a status or an end date but say nothing about whether
       * someone works here: read by nobody, and no longer a reason to refuse the file.
       */
      ignoreColumns: z.array(z.string().min(1)).default([]),
      schedule: z
        .string()
        .min(1)
        .refine((expression) => isValidCron(expression), 'expected a cron expression such as "0 2 * * *" (02:00 daily)')
        .default("0 2 * * *"),
      timezone: z
        .string()
        .min(1)
        .refine(isKnownTimezone, "expected an IANA time zone such as UTC or Europe/Berlin")
        .default("UTC"),
      runOnStart: z.boolean().default(false),
      runOnFileChange: z.boolean().default(false),
      include: z
        .strictObject({
          /**
           * Employment statuses in scope, compared ignoring case, spaces, `_` and `-`; rows with no
           * status column are in scope. Part-time and on-leave people are in scope by default.
           */
          statuses: z.array(z.string().min(1)).default(DEFAULT_STATUSES),
          departments: z.array(z.string().min(1)).default([]),
          locations: z.array(z.string().min(1)).default([]),
        })
        .prefault({}),
      /** People in these departments are added untracked (on the roster, no seat). */
      untrackedDepartments: z.array(z.string().min(1)).default([]),
      /** When capped, adds in these departments go first, in this order; then file order. */
      priorityDepartments: z.array(z.string().min(1)).default([]),
      archiveUnknown: z.boolean().default(false),
      /**
       * Consecutive new exports (file fingerprint: content hash + modification time) a person must
       * be missing from before being archived. Re-running the same export does not count.
       */
      archiveAfterMissingExports: z.number().int().min(1).optional(),
      /** The old name of archiveAfterMissingExports (it always counted exports, not runs). */
      archiveAfterMissingRuns: z.number().int().min(1).optional(),
      maxArchivePercent: z.number().min(0).max(100).default(10),
      maxArchiveCount: z.number().int().min(0).default(50),
      /** Standing approval to pass the mass-archive guard (like --allow-mass-archive). */
      approveMassArchive: z.boolean().default(false),
      /** Erase people archived for longer than this many days; off when absent. */
      eraseArchivedAfterDays: z.number().int().min(1).optional(),
      maxSeats: z.number().int().min(0).optional(),
      maxMonthlyUsd: z.number().min(0).optional(),
      /** An export unchanged (same fingerprint) for longer than this is reported as stale. */
      staleAfter: durationSeconds.default(3 * 86_400),
      /** A file with more rows than this is refused before it is read further. */
      maxRows: z.number().int().min(1).default(2_000_000),
    })
    .transform(({ archiveAfterMissingRuns, ...rest }) => ({
      ...rest,
      archiveAfterMissingExports: rest.archiveAfterMissingExports ?? archiveAfterMissingRuns ?? 2,
    }))
    .prefault({}),
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
