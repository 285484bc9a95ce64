import { validate as isValidCron } from "node-cron";
import { z } from "zod";
import { parsePath } from "../../roster/mapping/field-path.js";
import { MAPPING_NAMES } from "../../roster/presets/names.js";
import { durationSeconds } from "./common.js";

/** `roster`: the HRIS export, where it is pulled from, how it is mapped, and the rules of reconciliation. */

function isKnownTimezone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
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

export const rosterSchema = z
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
  .prefault({});
