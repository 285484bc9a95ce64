/** Records of the emulator's in-memory model. Times are epoch milliseconds on the virtual clock. */

import type { ChangeType } from "./change-types.js";

export type OrgKind = "primary" | "competitor";
export type EmployeeStatus = "active" | "importing" | "archived";
export type PlanStatus = "active" | "trialing" | "past_due" | "canceled" | "none";
export type Scope = "read" | "write";

export { CHANGE_TYPES, type ChangeType } from "./change-types.js";

export interface OrganizationRecord {
  id: number;
  name: string;
  kind: OrgKind;
  website: string | null;
  networkId: string | null;
  companyInfo: string | null;
  alertRiskThreshold: number;
  createdAt: number;
  /** For a competitor workspace: the primary company that tracks it. For a primary: itself. */
  companyId: number;
  /** Competitor workspaces only. */
  companyNetworkUrl: string | null;
  roleFilters: string[];
  paused: boolean;
  /** Ids tracked when the workspace was paused, re-tracked on resume. */
  pausedTrackedIds: number[];
}

export interface TrackingWindow {
  from: number;
  to: number | null;
}

export interface EmployeeRecord {
  id: number;
  organizationId: number;
  name: string;
  title: string | null;
  location: string | null;
  department: string | null;
  networkUrl: string;
  /** Canonical profile URL: the matching key inside an organization. */
  canonicalUrl: string;
  slug: string;
  profileImageUrl: string | null;
  tracked: boolean;
  status: EmployeeStatus;
  trackingStartedAt: number | null;
  createdAt: number;
  importReadyAt: number | null;
  windows: TrackingWindow[];
  /** Change ids of this person, in detection order. */
  changeIds: number[];
}

export interface ChangeRecord {
  id: number;
  organizationId: number;
  employeeId: number;
  changeType: ChangeType;
  changedFields: string;
  riskScore: number | null;
  summary: string;
  factors: string[];
  detectedAt: number;
}

export interface KeyRecord {
  id: string;
  key: string;
  organizationId: number;
  scopes: Scope[];
  revoked: boolean;
  createdAt: number;
  /** Startup keys survive a reset; control-API keys do not. */
  permanent: boolean;
}

export interface ChargeRecord {
  at: number;
  seats: number;
  usd: number;
  outcome: "succeeded" | "declined" | "retryable_decline";
}

export interface BillingAccount {
  status: PlanStatus;
  interval: "month" | "year";
  trialEndsAt: number | null;
  periodStart: number;
  periodEnd: number;
  cancelAtPeriodEnd: boolean;
  unbilledSeats: number;
  unbilledUsd: number;
  chargeFailed: boolean;
  chargeFailedAt: number | null;
  /** Set through the control API: the next batch charge is declined (finally). */
  chargeFailsNext: boolean;
  /** Set through the control API: the next batch charge gets one retryable decline (does not block, spec 3.4). */
  chargeRetryableNext: boolean;
  /** Times of tracked seats added through the API, ascending (rolling 24 h allowance). */
  apiSeatAdds: number[];
  /** Times of rows added through the API, tracked or not, ascending. */
  rowAdds: number[];
  apiSeatsPerDay: number;
  rowsPerDay: number;
  charges: ChargeRecord[];
}

export interface DeliveryRecord {
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  at: string;
  ok: boolean;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookEndpointRecord {
  id: string;
  companyId: number;
  url: string;
  description: string | null;
  enabled: boolean;
  employeeWarnings: boolean;
  poachingOpportunities: boolean;
  employeeWarningSensitivity: number;
  poachingOpportunitySensitivity: number;
  secret: string;
  createdAt: number;
  /** Failed attempts since the last successful one (or creation, or re-enabling). */
  consecutiveFailures: number;
  /** When the current failure streak began (its first failed attempt); null while delivering. */
  failingSince: number | null;
  /** Distinct events with a failed attempt in the current streak, in order. */
  failedEventIds: string[];
  disabledReason: string | null;
  lastDeliveryAt: number | null;
  lastStatus: "succeeded" | "failed" | null;
  recentDeliveries: DeliveryRecord[];
}

/** Risk level of spec 2.4; a departure (null score) reads as high. */
export function riskLevel(score: number | null): "high" | "watch" | "low" {
  if (score === null || score >= 0.75) return "high";
  if (score >= 0.5) return "watch";
  return "low";
}
