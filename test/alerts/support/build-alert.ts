import type { Alert, AlertPerson } from "../../../src/alerts/alert.js";
import type { Lens } from "../../../src/alerts/lens.js";

export const RETENTION: Lens = { kind: "retention", organizationId: 1 };
export const ACME: Lens = { kind: "poaching", organizationId: 7, competitor: { id: 7, name: "Acme Corp" } };
export const GLOBEX: Lens = { kind: "poaching", organizationId: 9, competitor: { id: 9, name: "Globex" } };

let counter = 0;

/** An alert with sensible defaults; override any field. */
export function buildAlert(overrides: Partial<Omit<Alert, "person">> & { person?: Partial<AlertPerson> } = {}): Alert {
  counter += 1;
  const { person, ...rest } = overrides;
  return {
    key: `chg:${counter}`,
    lens: RETENTION,
    changeType: "open_to_work",
    riskScore: 0.8,
    riskLevel: "high",
    detectedAt: "2026-11-23T09:00:00.000Z",
    summary: "Marked open to work after a title change",
    factors: ["Open to work", "Title change within 30 days"],
    ...rest,
    person: {
      employeeId: counter,
      name: `Person ${counter}`,
      title: "Engineer",
      department: "Engineering",
      location: "Berlin",
      profileUrl: `https://www.linkedin.com/in/person-${counter}`,
      dashboardUrl: `https://app.example.com/employees/${counter}`,
      ...person,
    },
  };
}
