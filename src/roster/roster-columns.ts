import type { ColumnMapping } from "../config/schema.js";
import { RosterFileError } from "../errors.js";
import type { RosterReadOptions } from "./read-options.js";

/** The fields a roster row can carry; only `profileUrl` is required. */
export const ROSTER_FIELDS = [
  "profileUrl",
  "employeeId",
  "name",
  "firstName",
  "lastName",
  "email",
  "department",
  "title",
  "location",
  "managerEmail",
  "status",
  "terminationDate",
] as const;
export type RosterField = (typeof ROSTER_FIELDS)[number];

/** Which column index (CSV) or key (JSON) holds each field, after matching the header. */
export type ResolvedColumns = Partial<Record<RosterField, number>>;

function mapping(columns: Partial<Record<RosterField, string[]>> & { profileUrl: string[] }): ColumnMapping {
  return {
    employeeId: [],
    name: [],
    firstName: [],
    lastName: [],
    email: [],
    department: [],
    title: [],
    location: [],
    managerEmail: [],
    status: [],
    terminationDate: [],
    ...columns,
  };
}

/**
 * Built-in mappings: `generic` is DESIGN.md's "Default roster columns"; `bamboohr` and `workday`
 * follow the vendors' field names (README "HRIS files": what they rest on). Header matching
 * ignores case, spaces, `_` and `-`, so Workday RaaS aliases (`Employee_ID`) match too.
 */
export const BUILT_IN_MAPPINGS: Readonly<Record<"generic" | "bamboohr" | "workday", ColumnMapping>> = {
  generic: mapping({
    profileUrl: ["networkUrl", "profileUrl", "linkedin", "linkedinUrl", "linkedinProfile"],
    employeeId: ["employeeId", "id", "workerId"],
    name: ["name", "fullName", "displayName"],
    firstName: ["firstName"],
    lastName: ["lastName"],
    email: ["email", "workEmail"],
    department: ["department"],
    title: ["title", "jobTitle"],
    location: ["location"],
    managerEmail: ["managerEmail", "supervisorEmail"],
    status: ["status", "employmentStatus"],
    terminationDate: ["terminationDate"],
  }),
  // BambooHR: "Status" is Active/Inactive (the employee record); "Employment Status" is the job's
  // type (Full-Time, Part-Time, Contractor, Terminated). Status is read first: reading Employment
  // Status first put part-time staff out of scope.
  bamboohr: mapping({
    profileUrl: ["LinkedIn", "LinkedIn URL", "LinkedIn Profile", "LinkedIn Profile URL"],
    employeeId: ["Employee #", "Employee Number", "EEID", "Employee ID"],
    name: ["Display Name", "Full Name", "Name"],
    firstName: ["First Name"],
    lastName: ["Last Name"],
    email: ["Work Email", "Email"],
    department: ["Department", "Division"],
    title: ["Job Title"],
    location: ["Location"],
    managerEmail: ["Supervisor Email", "Reports To Email", "Manager Email"],
    status: ["Status", "Employee Status", "Employment Status"],
    terminationDate: ["Termination Date"],
  }),
  // Workday custom reports (CSV, or RaaS JSON rows in `Report_Entry`): column names are the
  // report's field aliases. "Active Status" is a boolean (1/0, true/false, Yes/No).
  workday: mapping({
    profileUrl: ["LinkedIn Profile URL", "LinkedIn URL", "LinkedIn Profile", "LinkedIn", "Social Network URL"],
    employeeId: ["Employee ID", "Worker ID"],
    name: ["Worker", "Preferred Name", "Legal Name", "Full Name"],
    firstName: ["Legal First Name", "Legal Name - First Name", "First Name"],
    lastName: ["Legal Last Name", "Legal Name - Last Name", "Last Name"],
    email: ["Primary Work Email", "Email - Primary Work", "Work Email", "Email - Work"],
    department: ["Supervisory Organization", "Department", "Cost Center"],
    title: ["Business Title", "Job Profile", "Position"],
    location: ["Location", "Work Location"],
    managerEmail: ["Manager Email", "Manager Work Email"],
    status: ["Worker Status", "Employment Status", "Status", "Active Status", "Active"],
    terminationDate: ["Termination Date"],
  }),
};

/** Header comparison: case-insensitive, ignoring spaces, `_` and `-` (DESIGN.md). */
export function normalizeHeader(header: string): string {
  return header
    .replace(/^\uFEFF/, "")
    .toLowerCase()
    .replace(/[\s_-]+/g, "");
}

export function mappingFor(setting: "generic" | "bamboohr" | "workday" | ColumnMapping): ColumnMapping {
  return typeof setting === "string" ? BUILT_IN_MAPPINGS[setting] : setting;
}

/** Finds each field's column in a header row: the first listed name present wins. */
export function resolveColumns(headers: readonly string[], columnMapping: ColumnMapping): ResolvedColumns {
  const positions = new Map<string, number>();
  headers.forEach((header, index) => {
    const key = normalizeHeader(header);
    if (key !== "" && !positions.has(key)) positions.set(key, index);
  });
  const resolved: ResolvedColumns = {};
  for (const field of ROSTER_FIELDS) {
    for (const candidate of columnMapping[field]) {
      const index = positions.get(normalizeHeader(candidate));
      if (index !== undefined) {
        resolved[field] = index;
        break;
      }
    }
  }
  return resolved;
}

const SHOWN_HEADERS = 20;

/**
 * Resolves the header by the options' mapping, refusing a file without a profile URL column and
 * naming what it does have.
 */
export function requireProfileColumn(
  options: Pick<RosterReadOptions, "file" | "mapping">,
  headers: readonly string[],
): ResolvedColumns {
  const { file } = options;
  const columnMapping = mappingFor(options.mapping);
  const columns = resolveColumns(headers, columnMapping);
  if (columns.profileUrl === undefined) {
    const shown = headers
      .slice(0, SHOWN_HEADERS)
      .map((h) => JSON.stringify(h.length > 40 ? `${h.slice(0, 37)}...` : h));
    const more = headers.length > SHOWN_HEADERS ? ` and ${headers.length - SHOWN_HEADERS} more` : "";
    throw new RosterFileError(
      file,
      `has no profile URL column. Found columns: ${shown.join(", ")}${more}. Expected one of: ${columnMapping.profileUrl.join(", ")}. ` +
        'Rename the column or set roster.mapping (a built-in name or { profileUrl: ["Your Column"] }).',
    );
  }
  return columns;
}
