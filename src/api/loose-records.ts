import { z } from "zod";
import {
  definedOnly,
  isRecord,
  type Loose,
  readBoolean,
  readInteger,
  readRecord,
  readString,
  readStringList,
} from "./lenient-read.js";
import { type Employee, employeeSchema } from "./spec-records.js";

/**
 * Records whose field names the spec does not show (2.11, 2.12, 2.13): parsed as loose objects,
 * read through likely aliases, and normalized to the types below. Only what makes a record usable
 * at all (an id) is required.
 */

// 2.11 Competitor workspace: an id, a name, role filters, the paused flag, a tracked-people count.
export interface Competitor {
  id: number;
  name?: string;
  companyNetworkUrl?: string;
  roleFilters?: string[];
  paused?: boolean;
  trackedEmployeeCount?: number;
  employeeCount?: number;
  createdAt?: string;
}

export const competitorSchema = z.looseObject({}).transform((raw, ctx): Competitor => {
  const organization = readRecord(raw.organization, raw.workspace);
  const id = readInteger(raw.id, raw.organizationId, organization?.id);
  if (id === undefined) {
    ctx.addIssue({ code: "custom", path: ["id"], message: "required" });
    return z.NEVER;
  }
  const status = readString(raw.status)?.toLowerCase();
  return {
    id,
    ...definedOnly({
      name: readString(raw.name, organization?.name),
      companyNetworkUrl: readString(raw.companyNetworkUrl, raw.networkUrl, raw.companyUrl),
      roleFilters: readStringList(raw.roleFilters, raw.roles),
      paused: readBoolean(raw.paused, raw.isPaused) ?? (status ? status === "paused" : undefined),
      trackedEmployeeCount: readInteger(
        raw.trackedEmployeeCount,
        raw.trackedCount,
        raw.trackedPeople,
        raw.trackedPeopleCount,
        raw.trackedEmployees,
      ),
      employeeCount: readInteger(raw.employeeCount, raw.peopleCount),
      createdAt: readString(raw.createdAt),
    }),
  };
});

// 2.12 Webhook endpoint: id `whe_<id>`, the configurable fields, delivery health.
export interface WebhookHealth {
  consecutiveFailures?: number;
  /** Why the service disabled the endpoint, when it says (after failed deliveries, or by request). */
  disabledReason?: string | null;
  /** Since when deliveries have been failing in a row; null while they succeed. */
  failingSince?: string | null;
  lastDeliveryAt?: string | null;
  lastStatus?: string | number | null;
  recentDeliveries?: unknown[];
}

export interface WebhookEndpoint {
  id: string;
  url?: string;
  description?: string | null;
  enabled?: boolean;
  employeeWarnings?: boolean;
  poachingOpportunities?: boolean;
  employeeWarningSensitivity?: number;
  poachingOpportunitySensitivity?: number;
  createdAt?: string;
  health?: WebhookHealth;
}

/** The creation response: the endpoint plus its signing secret, returned only once (2.12). */
export type CreatedWebhookEndpoint = WebhookEndpoint & { secret?: string };

function readHealth(raw: Loose): WebhookHealth | undefined {
  const health = readRecord(raw.health, raw.deliveryHealth);
  if (!health) return undefined;
  const lastStatus = health.lastStatus;
  return definedOnly({
    consecutiveFailures: readInteger(health.consecutiveFailures, health.failureCount),
    disabledReason: health.disabledReason === null ? null : readString(health.disabledReason, raw.disabledReason),
    failingSince: health.failingSince === null ? null : readString(health.failingSince),
    lastDeliveryAt: health.lastDeliveryAt === null ? null : readString(health.lastDeliveryAt),
    lastStatus:
      lastStatus === null || typeof lastStatus === "string" || typeof lastStatus === "number" ? lastStatus : undefined,
    recentDeliveries: Array.isArray(health.recentDeliveries)
      ? health.recentDeliveries
      : Array.isArray(health.deliveries)
        ? health.deliveries
        : undefined,
  });
}

function normalizeWebhook(raw: Loose, ctx: z.RefinementCtx): WebhookEndpoint {
  const id = readString(raw.id) ?? (typeof raw.id === "number" ? String(raw.id) : undefined);
  if (id === undefined) {
    ctx.addIssue({ code: "custom", path: ["id"], message: "required" });
    return z.NEVER;
  }
  return {
    id,
    ...definedOnly({
      url: readString(raw.url),
      description: raw.description === null ? null : readString(raw.description),
      enabled: readBoolean(raw.enabled),
      employeeWarnings: readBoolean(raw.employeeWarnings),
      poachingOpportunities: readBoolean(raw.poachingOpportunities),
      employeeWarningSensitivity: readInteger(raw.employeeWarningSensitivity),
      poachingOpportunitySensitivity: readInteger(raw.poachingOpportunitySensitivity),
      createdAt: readString(raw.createdAt),
      health: readHealth(raw),
    }),
  };
}

export const webhookEndpointSchema = z.looseObject({}).transform(normalizeWebhook);

export const createdWebhookEndpointSchema = z.looseObject({}).transform((raw, ctx): CreatedWebhookEndpoint => {
  const endpoint = normalizeWebhook(raw, ctx);
  const secret = readString(raw.secret, raw.signingSecret);
  return secret === undefined ? endpoint : { ...endpoint, secret };
});

// 2.13 Bulk-add result: `added`, `skipped` (each with a reason and a readable message), `seatAllowance`.
export type BulkSkipKind = "invalid_url" | "duplicate" | "seat_ceiling" | "other";

export interface BulkAddedItem {
  id?: number;
  networkUrl?: string;
  employee?: Employee;
}

export interface BulkSkippedItem {
  networkUrl?: string;
  reason: string;
  kind: BulkSkipKind;
  message: string;
}

export interface BulkAddResult {
  added: BulkAddedItem[];
  /** Number of people added: `added.length`, or the count when the server sends only a number. */
  addedCount: number;
  skipped: BulkSkippedItem[];
  seatAllowance?: { perDay?: number; usedLast24h?: number; left?: number };
}

/**
 * Maps a skip reason (or its message) to the three reasons spec 4.3 names. The exact values are
 * not shown, so this goes by keywords; a duplicate is checked first because "duplicate url" is a
 * duplicate, then ceilings, then bad URLs.
 */
export function classifySkipReason(...texts: Array<string | undefined>): BulkSkipKind {
  for (const text of texts) {
    if (!text) continue;
    const t = text.toLowerCase();
    if (/duplicate|exists|already/.test(t)) return "duplicate";
    if (/seat|trial|quota|limit|ceiling|charge|allowance|payment/.test(t)) return "seat_ceiling";
    if (/url|invalid|malformed|not a public|profile/.test(t)) return "invalid_url";
  }
  return "other";
}

function readAddedItem(item: unknown): BulkAddedItem | undefined {
  if (typeof item === "string") return { networkUrl: item };
  if (typeof item === "number" && Number.isInteger(item)) return { id: item };
  if (!isRecord(item)) return undefined;
  const asEmployee = employeeSchema.safeParse(item);
  const nested = readRecord(item.employee);
  const nestedEmployee = nested ? employeeSchema.safeParse(nested) : undefined;
  const employee = asEmployee.success ? asEmployee.data : nestedEmployee?.success ? nestedEmployee.data : undefined;
  return definedOnly({
    id: readInteger(item.id, item.employeeId, nested?.id),
    networkUrl: readString(item.networkUrl, item.url, nested?.networkUrl),
    employee,
  });
}

function readSkippedItem(item: unknown): BulkSkippedItem | undefined {
  if (typeof item === "string") return { reason: item, kind: classifySkipReason(item), message: item };
  if (!isRecord(item)) return undefined;
  const reason = readString(item.reason, item.code, item.kind, item.type);
  const message = readString(item.message, item.error, item.detail, item.description);
  const networkUrl = readString(item.networkUrl, item.url, item.input);
  return {
    ...(networkUrl !== undefined ? { networkUrl } : {}),
    reason: reason ?? message ?? "unknown",
    kind: classifySkipReason(reason, message),
    message: message ?? reason ?? "skipped",
  };
}

export const bulkAddResultSchema = z.looseObject({}).transform((raw, ctx): BulkAddResult => {
  // Without `added` nobody can tell what the call did: reading it as "nothing added" would hide it.
  const countOnly = typeof raw.added === "number" && Number.isInteger(raw.added) && raw.added >= 0;
  let broken = false;
  if (!Array.isArray(raw.added) && !countOnly) {
    broken = true;
    ctx.addIssue({ code: "custom", path: ["added"], message: "required: the people added (a list) or their count" });
  }
  if (raw.skipped !== undefined && raw.skipped !== null && !Array.isArray(raw.skipped)) {
    broken = true;
    ctx.addIssue({ code: "custom", path: ["skipped"], message: "expected a list of the URLs skipped" });
  }
  if (broken) return z.NEVER;
  const addedList = Array.isArray(raw.added) ? raw.added : [];
  const added = addedList.map(readAddedItem).filter((x): x is BulkAddedItem => x !== undefined);
  const addedCount = typeof raw.added === "number" ? raw.added : added.length;
  const skipped = (Array.isArray(raw.skipped) ? raw.skipped : [])
    .map(readSkippedItem)
    .filter((x): x is BulkSkippedItem => x !== undefined);
  const allowance = readRecord(raw.seatAllowance, raw.apiSeatAllowance);
  const seatAllowance = allowance
    ? definedOnly({
        perDay: readInteger(allowance.perDay),
        usedLast24h: readInteger(allowance.usedLast24h, allowance.used),
        left: readInteger(allowance.left, allowance.remaining),
      })
    : undefined;
  return { added, addedCount, skipped, ...(seatAllowance ? { seatAllowance } : {}) };
});

/**
 * The company a competitor page really resolves to, from a 409 COMPETITOR_IDENTITY_MISMATCH body.
 * The spec does not show the field name, so likely names are tried, then any field naming a company.
 */
export function resolvedCompanyName(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const nameOf = (value: unknown): string | undefined =>
    readString(value) ?? (isRecord(value) ? readString(value.name, value.companyName, value.title) : undefined);
  for (const key of [
    "resolvedCompany",
    "resolvedName",
    "resolvedCompanyName",
    "actualCompany",
    "resolved",
    "company",
  ]) {
    const name = nameOf(body[key]);
    if (name) return name;
  }
  for (const [key, value] of Object.entries(body)) {
    if (key === "error" || key === "code") continue;
    if (/resolv|actual|company|found/i.test(key)) {
      const name = nameOf(value);
      if (name) return name;
    }
  }
  return undefined;
}
