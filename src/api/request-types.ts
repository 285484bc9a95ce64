/** Inputs of the client's operations (spec part 4). Optional fields accept undefined for convenience. */

export interface PageQuery {
  /** >= 1, default 1. */
  page?: number | undefined;
  /** 1..100, default 25 on the server (the iterators use 100). */
  pageSize?: number | undefined;
}

export interface EmployeeQuery {
  /** A competitor workspace (poaching lens); omit for the own company. */
  organizationId?: number | undefined;
  /** Searches name, title, location. */
  q?: string | undefined;
  /** true = tracked (billed), false = untracked. */
  tracked?: boolean | undefined;
}

export interface ChangeQuery {
  organizationId?: number | undefined;
  /** 0..1; departures are always included. */
  minRiskScore?: number | undefined;
  /** Changes detected at or after this instant (ISO 8601 string, or a Date). */
  since?: string | Date | undefined;
  /** One of the change types of spec 2.5. */
  changeType?: string | undefined;
}

export interface OrganizationPatch {
  name?: string | undefined;
  website?: string | null | undefined;
  companyInfo?: string | null | undefined;
  /** 0..1; the server snaps values between 0.5 and 0.75 to one of the two. */
  alertRiskThreshold?: number | undefined;
  /** Edit this competitor workspace instead of the own company (a selector, not a change). */
  organizationId?: number | undefined;
}

export interface AddEmployeeInput {
  networkUrl: string;
  tracked?: boolean | undefined;
  name?: string | undefined;
  organizationId?: number | undefined;
}

export interface BulkAddInput {
  /** 1 to 50 public profile URLs. */
  networkUrls: string[];
  tracked?: boolean | undefined;
  organizationId?: number | undefined;
}

export interface EmployeePatch {
  tracked?: boolean | undefined;
  status?: "active" | "archived" | undefined;
}

export interface CompetitorInput {
  companyNetworkUrl: string;
  roleFilters?: string[] | undefined;
  name?: string | undefined;
  acknowledgeIdentityMismatch?: boolean | undefined;
}

export interface CompetitorPatch {
  paused?: boolean | undefined;
  roleFilters?: string[] | undefined;
}

export interface WebhookInput {
  url: string;
  description?: string | undefined;
  employeeWarnings?: boolean | undefined;
  poachingOpportunities?: boolean | undefined;
  /** 1..5, default 3. */
  employeeWarningSensitivity?: number | undefined;
  /** 1..5. */
  poachingOpportunitySensitivity?: number | undefined;
}

export interface WebhookPatch {
  enabled?: boolean | undefined;
  url?: string | undefined;
  employeeWarnings?: boolean | undefined;
  poachingOpportunities?: boolean | undefined;
  employeeWarningSensitivity?: number | undefined;
  poachingOpportunitySensitivity?: number | undefined;
}
