import { mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** One generated HRIS row. */
export interface HrisPerson {
  readonly slug: string;
  readonly employeeId: string;
  readonly name: string;
  readonly email: string;
  readonly department: string;
  readonly title: string;
  readonly location: string;
  readonly status: string;
  /** Overrides the profile URL cell (variants, broken values); default is the canonical URL. */
  readonly url?: string;
}

export const DEPARTMENTS = ["Engineering", "Sales", "Marketing", "Support", "Finance"] as const;

export function canonicalUrl(slug: string): string {
  return `https://www.linkedin.com/in/${slug}`;
}

/** `count` people with distinct slugs `<prefix>-<n>`, departments round-robin, all active. */
export function makePeople(count: number, options: { prefix?: string; start?: number } = {}): HrisPerson[] {
  const prefix = options.prefix ?? "person";
  const start = options.start ?? 0;
  return Array.from({ length: count }, (_, i) => {
    const n = start + i;
    return {
      slug: `${prefix}-${n}`,
      employeeId: `E${String(n).padStart(6, "0")}`,
      name: `${prefix} ${n}`,
      email: `${prefix}.${n}@example.com`,
      department: DEPARTMENTS[n % DEPARTMENTS.length] ?? "Engineering",
      title: "Engineer",
      location: n % 2 === 0 ? "Berlin" : "London",
      status: "Active",
    };
  });
}

export function urlOf(person: HrisPerson): string {
  return person.url ?? canonicalUrl(person.slug);
}

function csvCell(value: string, delimiter: string): string {
  return /["\r\n]/.test(value) || value.includes(delimiter) ? `"${value.replace(/"/g, '""')}"` : value;
}

export interface CsvOptions {
  readonly delimiter?: string;
  readonly bom?: boolean;
  readonly crlf?: boolean;
  /** Header names in order, keyed by field; default the generic preset's names. */
  readonly headers?: Partial<
    Record<"url" | "employeeId" | "name" | "email" | "department" | "title" | "location" | "status", string>
  >;
}

/** A CSV export of `people` (generic headers unless overridden). */
export function toCsv(people: readonly HrisPerson[], options: CsvOptions = {}): string {
  const d = options.delimiter ?? ",";
  const h = {
    url: "LinkedIn URL",
    employeeId: "Employee ID",
    name: "Full Name",
    email: "Work Email",
    department: "Department",
    title: "Job Title",
    location: "Location",
    status: "Employment Status",
    ...options.headers,
  };
  const eol = options.crlf ? "\r\n" : "\n";
  const lines = [[h.url, h.employeeId, h.name, h.email, h.department, h.title, h.location, h.status].join(d)];
  for (const p of people) {
    lines.push(
      [urlOf(p), p.employeeId, p.name, p.email, p.department, p.title, p.location, p.status]
        .map((v) => csvCell(v, d))
        .join(d),
    );
  }
  return (options.bom ? "\uFEFF" : "") + lines.join(eol) + eol;
}

function jsonRecord(p: HrisPerson): Record<string, string> {
  return {
    networkUrl: urlOf(p),
    employeeId: p.employeeId,
    name: p.name,
    email: p.email,
    department: p.department,
    title: p.title,
    location: p.location,
    status: p.status,
  };
}

export function toJson(people: readonly HrisPerson[], options: { wrap?: boolean } = {}): string {
  const list = people.map(jsonRecord);
  return JSON.stringify(options.wrap ? { employees: list } : list, null, 2);
}

export function toNdjson(people: readonly HrisPerson[]): string {
  return `${people.map((p) => JSON.stringify(jsonRecord(p))).join("\n")}\n`;
}

/** A temporary folder for roster files, removed by `cleanup()`. */
export async function rosterDir(): Promise<{
  dir: string;
  write(name: string, content: string | Buffer): Promise<string>;
  cleanup(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), "roster-"));
  let tick = 0;
  return {
    dir,
    async write(name, content) {
      const path = join(dir, name);
      await writeFile(path, content);
      // A distinct mtime per write: a re-export of the same content still counts as a new file.
      tick += 1;
      const at = new Date(Date.now() + tick * 1000);
      await utimes(path, at, at);
      return path;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
