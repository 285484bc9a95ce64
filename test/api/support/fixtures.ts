/** Wire records as the spec describes them, for scripted server answers. */

export function employeeWire(id: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    organizationId: 1,
    name: `Person ${id}`,
    title: "Engineer",
    location: null,
    department: "engineering",
    networkUrl: `https://www.linkedin.com/in/person-${id}`,
    profileImageUrl: null,
    tracked: true,
    status: "active",
    trackingStartedAt: "2026-11-01T00:00:00Z",
    createdAt: "2026-11-01T00:00:00Z",
    latestChange: null,
    ...overrides,
  };
}

export function changeWire(id: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    organizationId: 1,
    employeeId: 100 + id,
    employee: { id: 100 + id, name: `Person ${100 + id}`, title: "Engineer", location: null, department: "sales" },
    changeType: "open_to_work",
    changedFields: "openToWork",
    riskScore: 0.81,
    riskLevel: "high",
    summary: "Turned on open to work",
    factors: ["open_to_work"],
    detectedAt: "2026-11-22T10:00:00Z",
    ...overrides,
  };
}

export function pageWire(
  items: unknown[],
  page: number,
  pageSize: number,
  total: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { items, total, page, pageSize, hasMore: page * pageSize < total, ...extra };
}

export const meWire = {
  organization: { id: 1, name: "Acme Corp" },
  competitors: [{ id: 2, name: "Globex" }],
  scopes: ["read", "write"],
};

export const organizationWire = {
  id: 1,
  name: "Acme Corp",
  website: null,
  networkId: null,
  kind: "primary",
  alertRiskThreshold: 0.5,
  createdAt: "2026-01-01T00:00:00Z",
  employeeCount: 10,
  trackedEmployeeCount: 8,
};

export const billingWire = {
  organizationId: 1,
  billingOrganizationId: 1,
  seats: { billable: 8, inThisOrganization: 8, organizationIds: [1] },
  plan: {
    status: "active",
    interval: "month",
    perSeatUsd: 5,
    quantity: 8,
    currentPeriodEnd: null,
    cancelAtPeriodEnd: false,
  },
  estimate: { grossUsd: 40, discountUsd: 0, netUsd: 40, interval: "month" },
  trial: { onFreeTrial: false, endsAt: null, seatLimit: 100, seatsLeft: null },
  seatSettlement: {
    threshold: 10,
    maxUnbilledUsd: 50,
    unbilledSeats: 2,
    estimatedUnbilledUsd: 10,
    seatsUntilNextCharge: 8,
    trigger: "seats",
    chargeFailed: false,
    chargeFailedAt: null,
  },
  apiSeatAllowance: { perDay: 200, usedLast24h: 3, left: 197 },
};
