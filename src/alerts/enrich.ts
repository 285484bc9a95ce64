import type { ChangeItem } from "../api/change-item.js";
import type { Employee } from "../api/spec-records.js";
import type { Logger } from "../logger.js";
import type { Alert } from "./alert.js";
import type { HrisDetails } from "./hris-details.js";
import type { Lens } from "./lens.js";

export type HrisLookup = (networkUrl: string) => HrisDetails | undefined;

export interface EnrichDeps {
  readonly getEmployee: (id: number) => Promise<Employee>;
  /**
   * Person details from roster list pages (`PersonDirectory.find`), instead of one `getEmployee`
   * per person: the poll door's way. Resolves undefined when the person is unknown.
   */
  readonly findPerson?: ((id: number, lens: Lens) => Promise<Employee | undefined>) | undefined;
  readonly hris?: HrisLookup | undefined;
  /** alerts.dashboardUrl: base for person links when a change carries none. */
  readonly dashboardUrl?: string | undefined;
  readonly logger: Logger;
  /** Shutdown: a look-up failing because of it fails the hand-over instead of degrading the alert. */
  readonly signal?: AbortSignal | undefined;
}

const text = (value: string | null | undefined): string | undefined => (value?.trim() ? value.trim() : undefined);

/** The HRIS row as shown on an alert; undefined when the person is not in the roster file. */
function trimmedHris(hris: HrisDetails | undefined): HrisDetails | undefined {
  if (!hris) return undefined;
  return {
    employeeId: text(hris.employeeId),
    title: text(hris.title),
    department: text(hris.department),
    managerEmail: text(hris.managerEmail),
    managerName: text(hris.managerName),
  };
}

/**
 * Turns change items into alerts, filling missing person details from the service (`findPerson`,
 * else `GET /employees/{id}`; each person at most once per pass) and the HR data (department,
 * manager, employee id, HR title) from the HRIS row.
 */
export class ChangeEnricher {
  private readonly employees = new Map<number, Promise<Employee | undefined>>();

  constructor(private readonly deps: EnrichDeps) {}

  private employee(id: number, lens: Lens): Promise<Employee | undefined> {
    let pending = this.employees.get(id);
    if (!pending) {
      const lookup = this.deps.findPerson ? this.deps.findPerson(id, lens) : this.deps.getEmployee(id);
      pending = lookup.catch((error: unknown) => {
        if (this.deps.signal?.aborted) throw error;
        this.deps.logger.warn(
          { employeeId: id, err: error },
          "could not fetch employee details; alerting without them",
        );
        return undefined;
      });
      this.employees.set(id, pending);
    }
    return pending;
  }

  async toAlert(item: ChangeItem, lens: Lens): Promise<Alert> {
    const given = item.employee ?? {};
    const employeeId = item.employeeId ?? given.id;
    const lacking = !text(given.name) || !given.networkUrl;
    const fetched = lacking && employeeId !== undefined ? await this.employee(employeeId, lens) : undefined;
    const profileUrl = given.networkUrl ?? fetched?.networkUrl;
    const hris = profileUrl && this.deps.hris ? this.deps.hris(profileUrl) : undefined;
    const base = this.deps.dashboardUrl?.replace(/\/+$/, "");
    const dashboardUrl =
      given.url ??
      (typeof fetched?.url === "string" ? fetched.url : undefined) ??
      (base && employeeId !== undefined ? `${base}/employees/${employeeId}` : undefined);
    return {
      key: item.key,
      lens,
      changeType: item.changeType,
      riskScore: item.riskScore,
      riskLevel: item.riskLevel,
      detectedAt: item.detectedAt,
      summary: item.summary,
      factors: item.factors,
      changedFields: item.changedFields,
      person: {
        employeeId,
        name:
          text(given.name) ??
          text(fetched?.name) ??
          (employeeId !== undefined ? `Employee #${employeeId}` : "Unknown person"),
        title: text(given.title) ?? text(fetched?.title),
        department: text(hris?.department) ?? text(given.department) ?? text(fetched?.department),
        location: text(given.location) ?? text(fetched?.location),
        profileUrl,
        dashboardUrl,
        managerEmail: text(hris?.managerEmail),
        hris: trimmedHris(hris),
      },
    };
  }
}
