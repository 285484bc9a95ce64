import { writeFile } from "node:fs/promises";
import type { EmulatorHandle } from "@retention-sync/emulator";

/** The shape of one benchmark roster: who is on the service, who the HRIS file lists. */
export interface RosterShape {
  readonly size: number;
  readonly joiners: number;
  readonly leavers: number;
  readonly rehires: number;
}

/** 5 % joiners, 5 % leavers, 1 % rehires, at least one of each. */
export function standardShape(size: number): RosterShape {
  const part = (share: number) => Math.max(1, Math.round(size * share));
  return { size, joiners: part(0.05), leavers: part(0.05), rehires: part(0.01) };
}

export const serviceSlug = (i: number): string => `p-${i}`;
export const joinerSlug = (i: number): string => `j-${i}`;
export const profileUrl = (slug: string): string => `https://www.linkedin.com/in/${slug}`;

const DEPARTMENTS = ["Engineering", "Sales", "Marketing", "Support", "Finance"];

function csvRow(slug: string, n: number): string {
  const dept = DEPARTMENTS[n % DEPARTMENTS.length] ?? "Engineering";
  return `${profileUrl(slug)},E${String(n).padStart(7, "0")},Person ${n},${slug}@example.com,${dept},Engineer,Berlin,Active`;
}

/** The formats the plan section reads: the generic CSV, and Workday RaaS-shaped JSON and NDJSON. */
export const PLAN_FORMATS = ["csv", "json", "ndjson"] as const;
export type PlanFormat = (typeof PLAN_FORMATS)[number];

/**
 * A Workday RaaS record (field aliases with `_`, multi-instance fields as groups), read through
 * nested paths: the LinkedIn URL in a worker group, the work email picked from a list by type.
 */
function raasRecord(slug: string, n: number): string {
  const dept = DEPARTMENTS[n % DEPARTMENTS.length] ?? "Engineering";
  return JSON.stringify({
    Employee_ID: `E${String(n).padStart(7, "0")}`,
    Name: `Person ${n}`,
    Active_Status: "1",
    Worker_Type: "Employee",
    Business_Title: "Engineer",
    Supervisory_Organization: dept,
    Location: "Berlin",
    Termination_Date: "",
    Worker_group: { LinkedIn_URL: profileUrl(slug), Hire_Date: "2020-01-01-08:00" },
    Email_group: [
      { Email_Type: "Home", Email_Address: `${slug}@home.example.com` },
      { Email_Type: "Work", Email_Address: `${slug}@example.com` },
    ],
  });
}

/** The roster settings that read `raasRecord`: the workday preset with two nested paths over it. */
export const RAAS_MAPPING = {
  preset: "workday",
  profileUrl: ["Worker_group.LinkedIn_URL"],
  email: ["Email_group[Email_Type=Work].Email_Address"],
} as const;

/** The same people as `writeHrisCsv`, as a RaaS JSON document or as NDJSON lines. */
export async function writeHrisJson(file: string, shape: RosterShape, ndjson: boolean): Promise<number> {
  const records: string[] = [];
  for (let i = 0; i < shape.size - shape.leavers; i += 1) records.push(raasRecord(serviceSlug(i), i));
  for (let i = 0; i < shape.joiners; i += 1) records.push(raasRecord(joinerSlug(i), shape.size + i));
  const text = ndjson ? `${records.join("\n")}\n` : `{"Report_Entry": [\n${records.join(",\n")}\n]}\n`;
  await writeFile(file, text);
  return records.length;
}

/**
 * The HRIS export: everyone on the service except the leavers (the last `leavers` people), plus the
 * joiners. The rehires (the first `rehires` people) are archived on the service but listed here.
 */
export async function writeHrisCsv(file: string, shape: RosterShape): Promise<number> {
  const lines = ["networkUrl,employeeId,name,email,department,title,location,status"];
  for (let i = 0; i < shape.size - shape.leavers; i += 1) lines.push(csvRow(serviceSlug(i), i));
  for (let i = 0; i < shape.joiners; i += 1) lines.push(csvRow(joinerSlug(i), shape.size + i));
  await writeFile(file, `${lines.join("\n")}\n`);
  return lines.length - 1;
}

async function control(emu: EmulatorHandle, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${emu.url}/_emulator/${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`control ${method} ${path}: HTTP ${response.status} ${await response.text()}`);
  return response.json();
}

export { control as emulatorControl };

/**
 * Seeds the service roster through the control API (`p-0` .. `p-<size-1>`, tracked), then archives
 * the rehires directly in the in-process emulator (the control API has no "archived" seeding).
 */
export async function seedServiceRoster(emu: EmulatorHandle, shape: RosterShape): Promise<void> {
  await control(emu, "POST", "employees", { count: shape.size, slugPrefix: "p", tracked: true });
  const em = emu.emulator;
  const now = em.clock.now();
  for (let i = 0; i < shape.rehires; i += 1) {
    const emp = em.state.findByUrl(emu.organizationId, profileUrl(serviceSlug(i)));
    if (!emp) throw new Error(`seeded person ${serviceSlug(i)} not found`);
    em.state.setTracked(emp, false, now);
    em.state.setStatus(emp, "archived");
  }
}

export interface LoggedRequest {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly time: string;
}

/** The emulator's log of `/api/v1` requests (capped at 10,000 entries by the emulator). */
export async function apiRequests(emu: EmulatorHandle): Promise<LoggedRequest[]> {
  const body = (await control(emu, "GET", "requests")) as { requests: LoggedRequest[] };
  return body.requests.filter((r) => r.path.startsWith("/api/v1"));
}

export async function clearRequests(emu: EmulatorHandle): Promise<void> {
  await control(emu, "DELETE", "requests");
}

/** The most requests seen in any 60 s window, and the mean rate over the run, per minute. */
export function requestRate(requests: readonly LoggedRequest[]): { maxIn60s: number; meanPerMinute: number } {
  const times = requests.map((r) => Date.parse(r.time)).sort((a, b) => a - b);
  let maxIn60s = 0;
  let start = 0;
  for (let end = 0; end < times.length; end += 1) {
    while ((times[end] ?? 0) - (times[start] ?? 0) >= 60_000) start += 1;
    maxIn60s = Math.max(maxIn60s, end - start + 1);
  }
  const span = times.length > 1 ? (times[times.length - 1] ?? 0) - (times[0] ?? 0) : 0;
  const meanPerMinute = span > 0 ? ((times.length - 1) / span) * 60_000 : times.length;
  return { maxIn60s, meanPerMinute };
}
