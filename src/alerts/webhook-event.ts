import { z } from "zod";
import type { ChangeItem } from "../api/change-item.js";
import { RISK_LEVELS, type RiskLevel } from "../api/spec-records.js";
import { changeIdFromEventId, changeKeyOf } from "./dedupe.js";
import type { Lens } from "./lens.js";

const nullishText = z.string().nullish();
const ref = z.looseObject({ id: z.number().int().positive(), name: z.string() });

/** Spec 6.3 employee: full form, or the reduced form with only id, name, title. */
const eventEmployee = z.looseObject({
  id: z.number().int().positive(),
  name: z.string(),
  title: nullishText,
  location: nullishText,
  department: nullishText,
  networkUrl: z.string().optional(),
  profileImageUrl: nullishText,
  url: z.string().optional(),
});

/** Spec 6.3 change: full form, or the reduced form without id, changedFields, factors, detectedAt. */
const eventChange = z.looseObject({
  id: z.number().int().positive().optional(),
  changeType: z.string().min(1),
  changedFields: z.string().nullish(),
  riskScore: z.number().min(0).max(1).nullable(),
  riskLevel: z.enum(RISK_LEVELS),
  summary: z.string().nullish(),
  factors: z.array(z.string()).nullish(),
  detectedAt: z.string().optional(),
});

export const riskEventSchema = z.looseObject({
  id: z.string().min(1),
  type: z.enum(["employee.warning", "poaching.opportunity"]),
  createdAt: z.string().optional(),
  sensitivityLevel: z.number().int().min(1).max(5).optional(),
  organization: ref,
  data: z.looseObject({
    competitor: ref.nullish(),
    employee: eventEmployee,
    change: eventChange,
  }),
});
export type RiskEvent = z.infer<typeof riskEventSchema>;

/** Only what every delivery carries: the id and type (the ping payload is not shown in the spec). */
export const anyEventSchema = z.looseObject({ id: z.string().min(1), type: z.string().min(1) });

/** The change identity shared with the poller: `chg:<id>` from the change, or from the event id. */
export function eventChangeKey(event: RiskEvent): string | undefined {
  const id = event.data.change.id ?? changeIdFromEventId(event.id);
  return id === undefined ? undefined : changeKeyOf(id);
}

export function eventLens(event: RiskEvent): Lens | undefined {
  if (event.type === "employee.warning") return { kind: "retention", organizationId: event.organization.id };
  const competitor = event.data.competitor;
  if (!competitor) return undefined;
  return { kind: "poaching", organizationId: competitor.id, competitor: { id: competitor.id, name: competitor.name } };
}

/** The event as a change item, so both paths share enrichment and formatting. */
export function eventAsChangeItem(event: RiskEvent, key: string, receivedAt: Date): ChangeItem {
  const { change, employee } = event.data;
  const item: ChangeItem = {
    key,
    employeeId: employee.id,
    changeType: change.changeType,
    riskScore: change.riskScore,
    riskLevel: change.riskLevel as RiskLevel,
    detectedAt: change.detectedAt ?? event.createdAt ?? receivedAt.toISOString(),
    employee: {
      id: employee.id,
      name: employee.name,
      ...(employee.title != null ? { title: employee.title } : {}),
      ...(employee.location != null ? { location: employee.location } : {}),
      ...(employee.department != null ? { department: employee.department } : {}),
      ...(employee.networkUrl !== undefined ? { networkUrl: employee.networkUrl } : {}),
      ...(employee.url !== undefined ? { url: employee.url } : {}),
    },
  };
  if (change.id !== undefined) item.id = change.id;
  if (change.summary) item.summary = change.summary;
  if (change.factors) item.factors = change.factors;
  if (change.changedFields) item.changedFields = change.changedFields;
  return item;
}
