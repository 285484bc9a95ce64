import { iso } from "./clock.js";
import type { EmulatorWorld } from "./emulator-world.js";
import { type ChangeRecord, type EmployeeRecord, type OrganizationRecord, riskLevel } from "./model.js";

/** Wire shapes of records (spec 2.3, 2.6, 2.7, 2.11 and the "not shown" choices of the README). */

/** Spec 2.8 window: a change is visible when it was detected inside one of the person's tracking
 * windows (archiving and untracking close the window but keep the history). */
export function changeVisible(emp: EmployeeRecord, change: ChangeRecord): boolean {
  return emp.windows.some((w) => change.detectedAt >= w.from && (w.to === null || change.detectedAt <= w.to));
}

export function latestChange(em: EmulatorWorld, emp: EmployeeRecord) {
  for (let i = emp.changeIds.length - 1; i >= 0; i--) {
    const c = em.state.changes.get(emp.changeIds[i] ?? 0);
    if (c && changeVisible(emp, c)) {
      return {
        riskScore: c.riskScore,
        riskLevel: riskLevel(c.riskScore),
        changeType: c.changeType,
        detectedAt: iso(c.detectedAt),
      };
    }
  }
  return null;
}

export function employeeView(em: EmulatorWorld, emp: EmployeeRecord) {
  return {
    id: emp.id,
    organizationId: emp.organizationId,
    name: emp.name,
    title: emp.title,
    location: emp.location,
    department: emp.department,
    networkUrl: emp.networkUrl,
    profileImageUrl: emp.profileImageUrl,
    tracked: emp.tracked,
    status: emp.status,
    // Spec 2.7 types it a date-time (not nullable): absent for someone never tracked.
    ...(emp.trackingStartedAt === null ? {} : { trackingStartedAt: iso(emp.trackingStartedAt) }),
    createdAt: iso(emp.createdAt),
    latestChange: latestChange(em, emp),
  };
}

export function dashboardUrl(em: EmulatorWorld, employeeId: number): string {
  return `${em.origin}/app/people/${employeeId}`;
}

export function changeView(em: EmulatorWorld, c: ChangeRecord) {
  const emp = em.state.employees.get(c.employeeId);
  return {
    id: c.id,
    organizationId: c.organizationId,
    employeeId: c.employeeId,
    employee: emp
      ? {
          id: emp.id,
          name: emp.name,
          title: emp.title,
          location: emp.location,
          department: emp.department,
          networkUrl: emp.networkUrl,
          profileImageUrl: emp.profileImageUrl,
          url: dashboardUrl(em, emp.id),
        }
      : null,
    changeType: c.changeType,
    changedFields: c.changedFields,
    riskScore: c.riskScore,
    riskLevel: riskLevel(c.riskScore),
    summary: c.summary,
    factors: c.factors,
    detectedAt: iso(c.detectedAt),
  };
}

export function organizationView(em: EmulatorWorld, org: OrganizationRecord) {
  return {
    id: org.id,
    name: org.name,
    website: org.website,
    networkId: org.networkId,
    kind: org.kind,
    companyInfo: org.companyInfo,
    alertRiskThreshold: org.alertRiskThreshold,
    createdAt: iso(org.createdAt),
    employeeCount: em.state.employeeIdsOf(org.id).length,
    trackedEmployeeCount: em.state.trackedIn(org.id),
  };
}

export function competitorView(em: EmulatorWorld, org: OrganizationRecord) {
  return {
    id: org.id,
    name: org.name,
    companyNetworkUrl: org.companyNetworkUrl,
    roleFilters: org.roleFilters,
    paused: org.paused,
    trackedEmployeeCount: em.state.trackedIn(org.id),
    employeeCount: em.state.employeeIdsOf(org.id).length,
    importing: em.state.rosterImports.some((j) => j.orgId === org.id),
    createdAt: iso(org.createdAt),
  };
}
