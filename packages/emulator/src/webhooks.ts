import { createHmac, randomBytes } from "node:crypto";
import { BlockList, isIP } from "node:net";
import { iso } from "./clock.js";
import {
  type ChangeRecord,
  type EmployeeRecord,
  type OrganizationRecord,
  riskLevel,
  type WebhookEndpointRecord,
} from "./model.js";

/** Webhook rules of spec 6: signatures, sensitivity, URL admission, event bodies. */

/**
 * Emulator choice (spec 6.5.4 "many consecutive failed deliveries", count not shown): an endpoint is
 * disabled once this many events in a row failed every attempt made for them ...
 */
export const AUTO_DISABLE_EVENTS = 5;
/** ... and the failures have gone on for at least a day (a brief outage never disables). */
export const AUTO_DISABLE_SPAN_MS = 24 * 3_600_000;
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

/** IPv4 ranges that are not globally reachable unicast (IANA special-purpose registry, multicast, reserved). */
const SPECIAL_V4: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8], // this network
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // shared address space (carrier-grade NAT)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation (TEST-NET-1)
  ["192.88.99.0", 24], // 6to4 relay anycast (deprecated)
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation (TEST-NET-2)
  ["203.0.113.0", 24], // documentation (TEST-NET-3)
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];

/**
 * IPv6: only global unicast (2000::/3) can be public, which already leaves out loopback, the
 * unspecified address, IPv4-mapped, NAT64, discard, unique-local, link- and site-local and
 * multicast. These parts of 2000::/3 are not public either (or embed an IPv4 address).
 */
const SPECIAL_V6: ReadonlyArray<readonly [string, number]> = [
  ["2001::", 32], // Teredo
  ["2001:2::", 48], // benchmarking
  ["2001:10::", 28], // ORCHID (deprecated)
  ["2001:20::", 28], // ORCHIDv2
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4
  ["3fff::", 20], // documentation
];

const GLOBAL_V6 = new BlockList();
GLOBAL_V6.addSubnet("2000::", 3, "ipv6");
const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of SPECIAL_V4) NOT_PUBLIC.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of SPECIAL_V6) NOT_PUBLIC.addSubnet(net, prefix, "ipv6");

/** Whether an IP literal is a public unicast address. */
function publicIp(ip: string, family: 4 | 6): boolean {
  if (family === 4) return !NOT_PUBLIC.check(ip, "ipv4");
  return GLOBAL_V6.check(ip, "ipv6") && !NOT_PUBLIC.check(ip, "ipv6");
}

/** Names that never reach the public internet. */
function localName(host: string): boolean {
  return (
    host === "localhost" ||
    !host.includes(".") ||
    [".localhost", ".local", ".internal", ".home.arpa"].some((suffix) => host.endsWith(suffix))
  );
}

/**
 * Spec 6.5.5: public HTTPS on the default port; localhost and private addresses refused. With
 * `allowLoopback`, http(s)://127.0.0.1:<any port> is accepted too (local tests and the demo).
 * IP literals (in any form the URL parser reads as one) must be public unicast; names are judged
 * by their form only (no DNS lookups), the root dot ignored. Returns an error sentence naming
 * `url`, or null when admitted.
 */
export function webhookUrlProblem(raw: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `url: "${raw}" is not a valid URL.`;
  }
  const host = url.hostname
    .replace(/^\[|\]$/g, "")
    .toLowerCase()
    .replace(/\.+$/, "");
  if (allowLoopback && host === "127.0.0.1" && (url.protocol === "http:" || url.protocol === "https:")) return null;
  if (url.protocol !== "https:") return "url: must be a public HTTPS URL.";
  if (url.port !== "") return "url: must use the default HTTPS port (443).";
  if (url.username || url.password) return "url: must not carry credentials.";
  const family = isIP(host);
  if (family === 4 || family === 6) {
    return publicIp(host, family) ? null : "url: localhost and private-network addresses are refused.";
  }
  if (localName(host)) return "url: localhost and private-network hosts are refused.";
  return null;
}

/** The endpoint record (the secret is only added by the creation handler). */
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
      consecutiveFailedEvents: ep.failedEventIds.length,
      failingSince: ep.failingSince === null ? null : iso(ep.failingSince),
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
