import { createHash } from "node:crypto";
import { z } from "zod";
import {
  definedOnly,
  isRecord,
  type Loose,
  readInteger,
  readNumber,
  readRecord,
  readString,
  readStringList,
} from "./lenient-read.js";
import { type RiskLevel, readRiskLevel, riskLevelOfScore } from "./spec-records.js";

/** The person a change is about, as far as the change item tells. */
export interface ChangeEmployee {
  id?: number;
  name?: string;
  title?: string | null;
  location?: string | null;
  department?: string | null;
  networkUrl?: string;
  profileImageUrl?: string | null;
  url?: string;
}

/**
 * A change item of `/changes` and `/employees/{id}/changes`, normalized. Spec 2.8 does not show
 * its fields, so every name is read leniently; `key` is a stable identity even without an `id`.
 */
export interface ChangeItem {
  key: string;
  id?: number;
  organizationId?: number;
  employeeId?: number;
  changeType: string;
  riskScore: number | null;
  riskLevel: RiskLevel;
  detectedAt: string;
  summary?: string;
  factors?: string[];
  changedFields?: string;
  employee?: ChangeEmployee;
}

/** `chg:<id>` when the change has an id, else a hash of what identifies it (stable across polls). */
export function changeItemKey(fields: {
  id?: number | undefined;
  organizationId?: number | undefined;
  employeeId?: number | undefined;
  changeType: string;
  detectedAt: string;
}): string {
  if (fields.id !== undefined) return `chg:${fields.id}`;
  const instant = Date.parse(fields.detectedAt);
  // The same instant may be written differently (offset, precision): hash its canonical form.
  const detectedAt = Number.isNaN(instant) ? fields.detectedAt : new Date(instant).toISOString();
  const material = JSON.stringify([
    fields.organizationId ?? null,
    fields.employeeId ?? null,
    fields.changeType,
    detectedAt,
  ]);
  return `chg:h:${createHash("sha256").update(material).digest("hex").slice(0, 32)}`;
}

/** A nullable text field: a string, an explicit null, or absent. */
function nullableText(record: Loose, name: string): string | null | undefined {
  const value = record[name];
  if (value === null) return null;
  return typeof value === "string" ? value : undefined;
}

function readChangeEmployee(raw: Loose): ChangeEmployee | undefined {
  const person = readRecord(raw.employee, raw.person);
  if (!person) return undefined;
  return definedOnly({
    id: readInteger(person.id, person.employeeId),
    name: readString(person.name),
    title: nullableText(person, "title"),
    location: nullableText(person, "location"),
    department: nullableText(person, "department"),
    networkUrl: readString(person.networkUrl, person.profileUrl),
    profileImageUrl: nullableText(person, "profileImageUrl"),
    url: readString(person.url, person.dashboardUrl),
  });
}

/** `changedFields` is a string in spec 6.3; a list is joined rather than dropped. */
function readChangedFields(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.filter((x) => typeof x === "string").join(", ");
  return undefined;
}

export const changeItemSchema = z.looseObject({}).transform((raw, ctx): ChangeItem => {
  const changeType = readString(raw.changeType, raw.type);
  const detectedAt = readString(raw.detectedAt, raw.detected_at, raw.createdAt);
  if (changeType === undefined) ctx.addIssue({ code: "custom", path: ["changeType"], message: "required" });
  if (detectedAt === undefined) ctx.addIssue({ code: "custom", path: ["detectedAt"], message: "required" });
  if (changeType === undefined || detectedAt === undefined) return z.NEVER;

  const employee = readChangeEmployee(raw);
  const organization = readRecord(raw.organization);
  const id = readInteger(raw.id, raw.changeId);
  const organizationId = readInteger(raw.organizationId, organization?.id);
  const employeeId = readInteger(raw.employeeId, employee?.id);
  const riskScore = readNumber(raw.riskScore, raw.score) ?? null;
  const riskLevel = readRiskLevel(raw.riskLevel) ?? riskLevelOfScore(riskScore, changeType);
  const factors = readStringList(raw.factors);
  return {
    key: changeItemKey({ id, organizationId, employeeId, changeType, detectedAt }),
    ...definedOnly({
      id,
      organizationId,
      employeeId,
      summary: readString(raw.summary),
      changedFields: readChangedFields(raw.changedFields),
    }),
    changeType,
    riskScore,
    riskLevel,
    detectedAt,
    ...(factors ? { factors } : {}),
    ...(employee && isRecord(employee) ? { employee } : {}),
  };
});
