/** A person of the service's roster, as far as the sample export needs it. */
export interface RosterPerson {
  readonly name: string;
  readonly networkUrl: string;
  readonly title?: string | null | undefined;
  readonly department?: string | null | undefined;
  readonly location?: string | null | undefined;
  readonly status: string;
}

export interface SampleRoster {
  readonly csv: string;
  readonly joiners: number;
  readonly leavers: number;
  readonly rehires: number;
  readonly brokenRows: number;
}

const HEADER = [
  "Employee ID",
  "Full Name",
  "Work Email",
  "Department",
  "Job Title",
  "Location",
  "Manager Email",
  "LinkedIn URL",
  "Employment Status",
];
const DEPARTMENTS = ["Engineering", "Sales", "Product", "Customer Success", "Finance"];

function csvCell(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function slugOf(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/**
 * The demo's HRIS export, made from the service's current roster so that a reconcile has a bit
 * of everything to show: most people kept, a few leavers missing, joiners, a rehire of an
 * archived person, and broken rows the report names by line. Deterministic for a given roster.
 */
export function buildSampleRoster(people: readonly RosterPerson[], options: { joiners?: number } = {}): SampleRoster {
  const active = people.filter((p) => p.status !== "archived");
  const archived = people.filter((p) => p.status === "archived");
  const leaverEvery = 40;
  const kept = active.filter((_, index) => index % leaverEvery !== leaverEvery - 1);
  const rehired = archived.slice(0, 1);
  const rows: string[][] = [];
  let id = 1000;
  const emailOf = (name: string) => `${slugOf(name).replace(/-/g, ".")}@example.com`;
  for (const person of [...kept, ...rehired]) {
    id += 1;
    rows.push([
      `E${id}`,
      person.name,
      emailOf(person.name),
      person.department ?? DEPARTMENTS[id % DEPARTMENTS.length] ?? "Engineering",
      person.title ?? "",
      person.location ?? "",
      "manager@example.com",
      person.networkUrl,
      "Active",
    ]);
  }
  const joinerCount = options.joiners ?? 12;
  for (let n = 1; n <= joinerCount; n += 1) {
    id += 1;
    const name = `Demo Joiner ${n}`;
    const department = DEPARTMENTS[n % DEPARTMENTS.length] ?? "Engineering";
    // Pasted the way people paste them: no scheme, mobile subdomain, query strings, trailing slashes.
    const variants = [
      `https://www.linkedin.com/in/demo-joiner-${n}`,
      `linkedin.com/in/demo-joiner-${n}/`,
      `https://m.linkedin.com/in/demo-joiner-${n}?trk=hris`,
    ];
    const url = variants[n % variants.length] ?? `https://www.linkedin.com/in/demo-joiner-${n}`;
    rows.push([`E${id}`, name, emailOf(name), department, "New Hire", "Remote", "manager@example.com", url, "Active"]);
  }
  const broken: string[][] = [
    ["E9001", "No Profile Person", "no.profile@example.com", "Sales", "AE", "Berlin", "", "", "Active"],
    [
      "E9002",
      "Opaque Id Person",
      "opaque@example.com",
      "Sales",
      "AE",
      "Berlin",
      "",
      "https://www.linkedin.com/in/ACoAAB1234567890abcdefg",
      "Active",
    ],
    [
      "E9003",
      "Wrong Site Person",
      "wrong.site@example.com",
      "Product",
      "PM",
      "Paris",
      "",
      "https://example.com/profile/wrong-site",
      "Active",
    ],
    [
      "E9004",
      "Terminated Person",
      "gone@example.com",
      "Finance",
      "Analyst",
      "Madrid",
      "",
      "https://www.linkedin.com/in/terminated-person-demo",
      "Terminated",
    ],
  ];
  const firstKept = kept[0];
  if (firstKept) {
    broken.push([
      "E9005",
      `${firstKept.name} (duplicate row)`,
      "dup@example.com",
      "Engineering",
      "",
      "",
      "",
      firstKept.networkUrl,
      "Active",
    ]);
  }
  rows.push(...broken);
  const csv = [HEADER, ...rows].map((row) => row.map(csvCell).join(",")).join("\r\n");
  return {
    csv: `${csv}\r\n`,
    joiners: joinerCount,
    leavers: active.length - kept.length,
    rehires: rehired.length,
    brokenRows: broken.length,
  };
}
