import { createHmac, randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { iso } from "./clock.js";
import {
  type ChangeRecord,
  type EmployeeRecord,
  type OrganizationRecord,
  riskLevel,
  type WebhookEndpointRecord,
} from "./model.js";

/** Webhook rules of spec 6: signatures, sensitivity, URL admission, event bodies. */

/** Emulator choice (spec 6.5.4 "not shown"): consecutive failed attempts before auto-disable. */
export const AUTO_DISABLE_AFTER = 10;
export const MAX_RECENT_DELIVERIES = 20;
/** Delays before attempts 2..6 (spec 6.5.3). */
export const RETRY_DELAYS_MS = [5 * 60_000, 30 * 60_000, 2 * 3_600_000, 8 * 3_600_000, 24 * 3_600_000] as const;
export const DELIVERY_TIMEOUT_MS = 10_000;

/** Minimum risk score per sensitivity level (spec 6.2). */
export const SENSITIVITY_MIN_SCORE: Readonly<Record<number, number>> = { 1: 0.9, 2: 0.75, 3: 0.5, 4: 0.35, 5: 0.2 };

/** Whether a change passes an endpoint's level; departures always do. */
export function admittedAt(level: number, change: Pick<ChangeRecord, "changeType" | "riskScore">): boolean {
  if (change.changeType === "employee_departed" || change.riskScore === null) return true;
  return change.riskScore >= (SENSITIVITY_MIN_SCORE[level] ?? 0.5);
}

/** `X-Service-Signature` value: hex HMAC-SHA256 of `<t>.<raw body>` (spec 6.4). */
export function signatureHeader(secret: string, unixSeconds: number, rawBody: string): string {
  const mac = createHmac("sha256", secret).update(`${unixSeconds}.${rawBody}`).digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}

export function newSecret(): string {
  return `whsec_${randomBytes(24).toString("hex")}`;
}

function privateV4(ip: string): boolean {
  const [a = 0, b = 0] = ip.split(".").map(Number);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127) ||
    a >= 224
  );
}

function privateV6(ip: string): boolean {
  const x = ip.toLowerCase();
  return (
    x === "::1" ||
    x === "::" ||
    x.startsWith("fc") ||
    x.startsWith("fd") ||
    x.startsWith("fe80") ||
    x.startsWith("::ffff:")
  );
}

/**
 * Spec 6.5.5: public HTTPS on the default port; localhost and private addresses refused. With
 * `allowLoopback`, http(s)://127.0.0.1:<any port> is accepted too (local tests and the demo).
 * Returns an error sentence naming `url`, or null when admitted.
 */
export function webhookUrlProblem(raw: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `url: "${raw}" is not a valid URL.`;
  }
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (allowLoopback && host === "127.0.0.1" && (url.protocol === "http:" || url.protocol === "https:")) return null;
  if (url.protocol !== "https:") return "url: must be a public HTTPS URL.";
  if (url.port !== "") return "url: must use the default HTTPS port (443).";
  if (url.username || url.password) return "url: must not carry credentials.";
  const kind = isIP(host);
  if (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host.endsWith(".local") ||
    host.endsWith(".internal") ||
    !host.includes(".")
  ) {
    return "url: localhost and private-network hosts are refused.";
  }
  if ((kind === 4 && privateV4(host)) || (kind === 6 && privateV6(host)))
    return "url: localhost and private-network addresses are refused.";
  return null;
}

/** The endpoint record of DESIGN.md (the secret is only added by the creation handler). */
export function endpointView(ep: WebhookEndpointRecord) {
  return {
    id: ep.id,
    url: ep.url,
    description: ep.description,
    enabled: ep.enabled,
    employeeWarnings: ep.employeeWarnings,
    poachingOpportunities: ep.poachingOpportunities,
    employeeWarningSensitivity: ep.employeeWarningSensitivity,
    poachingOpportunitySensitivity: ep.poachingOpportunitySensitivity,
    createdAt: iso(ep.createdAt),
    health: {
      consecutiveFailures: ep.consecutiveFailures,
      disabledReason: ep.disabledReason,
      lastDeliveryAt: ep.lastDeliveryAt === null ? null : iso(ep.lastDeliveryAt),
      lastStatus: ep.lastStatus,
      recentDeliveries: ep.recentDeliveries,
    },
  };
}

export interface EventContext {
  company: OrganizationRecord;
  org: OrganizationRecord;
  employee: EmployeeRecord;
  change: ChangeRecord;
  dashboardUrl: string;
  level: number;
  now: number;
}

/** Spec 6.3: "a reduced form also occurs" — employee {id, name, title}, change without id, changedFields, factors, detectedAt. */
export function reduceEvent(body: ReturnType<typeof eventBody>) {
  const { employee, change } = body.data;
  return {
    ...body,
    data: {
      competitor: body.data.competitor,
      employee: { id: employee.id, name: employee.name, title: employee.title },
      change: {
        changeType: change.changeType,
        riskScore: change.riskScore,
        riskLevel: change.riskLevel,
        summary: change.summary,
      },
    },
  };
}

/** The event body of spec 6.3 for one change (full forms of employee and change). */
export function eventBody(ctx: EventContext) {
  const { change, employee } = ctx;
  const poaching = ctx.org.kind === "competitor";
  return {
    id: `evt_${change.id}_1`,
    type: poaching ? "poaching.opportunity" : "employee.warning",
    createdAt: iso(ctx.now),
    sensitivityLevel: ctx.level,
    organization: { id: ctx.company.id, name: ctx.company.name },
    data: {
      competitor: poaching ? { id: ctx.org.id, name: ctx.org.name } : null,
      employee: {
        id: employee.id,
        name: employee.name,
        title: employee.title,
        location: employee.location,
        networkUrl: employee.networkUrl,
        profileImageUrl: employee.profileImageUrl,
        url: ctx.dashboardUrl,
      },
      change: {
        id: change.id,
        changeType: change.changeType,
        changedFields: change.changedFields,
        riskScore: change.riskScore,
        riskLevel: riskLevel(change.riskScore),
        summary: change.summary,
        factors: change.factors,
        detectedAt: iso(change.detectedAt),
      },
    },
  };
}
