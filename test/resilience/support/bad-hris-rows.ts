/**
 * The row-level half of the bad-HRIS corpus: files that are read, with every bad row reported by
 * line (hostile URLs, formula cells, duplicates, JSON cells that are not text).
 */
import { canonicalUrl, type HrisPerson, makePeople, toCsv, toJson } from "../../helpers/roster-files.js";
import { type CorpusCase, type ExpectedProblem, lineOf, STAYING, staying } from "./bad-hris-corpus.js";

/** URLs no profile row may carry; each must be refused with its line and never reach the service. */
export const HOSTILE_URLS: readonly string[] = [
  "javascript:alert(document.cookie)//www.linkedin.com/in/evil-1",
  "data:text/html,<script>alert(1)</script>",
  "file:///etc/passwd",
  "https://evil.example/in/evil-2",
  "https://linkedin.com.evil.com/in/evil-3",
  "https://user:pass@www.linkedin.com/in/evil-4",
  "https://www.linkedin.com:8443/in/evil-5",
  "https://www.linkedin.com/in/../company/evil-6",
  "https://www.linkedin.com/company/x/../../in/evil-7",
  "https://www.linkedin.com/in/evil%2F8",
  "https://www.lіnkedin.com/in/evil-9",
  "https://www.xn--lnkedin-5kf.com/in/evil-10",
  "https://www.linkedin.com/in/еvil-11",
  "https://www.linkedin.com/in/evil\r\n-12",
  "https://www.linkedin.com/in/evil -13",
  `https://www.linkedin.com/in/evil-14?${"x".repeat(5000)}`,
  "https://www.linkedin.com/in/ACoAABcdEfGhIjKlMnOpQrStUvWxYz012",
  "https://www.linkedin.com/company/evil-corp",
  "https://www.linkedin.com\\in\\evil-16",
  "https://www.linkedin.com/in/ｅｖｉｌ-17",
  "https://www.linkedin.com/in/evil-18\u202e",
];

/** Formula cells in the URL, name, department and employee id columns (OWASP CSV injection). */
export const FORMULAS = {
  url: [
    '=HYPERLINK("http://evil.example/x","click")',
    "+cmd|' /C calc'!A0",
    "-1+1",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    '\t=HYPERLINK("http://evil.example/tab")',
  ],
  name: '=HYPERLINK("http://evil.example/name","click")',
  department: "+cmd|' /C calc'!A0",
  negative: "-1+1",
  at: "@SUM(1+1)*cmd|' /C calc'!A0",
  carriageReturn: '\r=HYPERLINK("http://evil.example/cr")',
  employeeId: "=1+2",
} as const;

/** Raw fragments of those formulas: none may reach a report, JSON or Slack. */
export const FORMULA_FRAGMENTS = ["=HYPERLINK(", "evil.example", "cmd|", "@SUM(", "=1+2", "-1+1"];

function extra(index: number, url: string, overrides: Partial<HrisPerson> = {}): HrisPerson {
  const [person] = makePeople(1, { prefix: "newhire", start: 1000 + index });
  if (!person) throw new Error("corpus: no person");
  return { ...person, url, ...overrides };
}

/** The formula file: existing people with formulas in other columns, new rows with formula URLs. */
export function formulaRows(): { people: HrisPerson[]; problems: ExpectedProblem[] } {
  const people: HrisPerson[] = STAYING.map((p, i) => {
    if (i === 3) return { ...p, name: FORMULAS.name };
    if (i === 4) return { ...p, department: FORMULAS.department };
    if (i === 5) return { ...p, name: FORMULAS.negative };
    if (i === 6) return { ...p, department: FORMULAS.at };
    if (i === 7) return { ...p, name: FORMULAS.carriageReturn };
    if (i === 8) return { ...p, employeeId: FORMULAS.employeeId };
    return p;
  });
  FORMULAS.url.forEach((url, i) => {
    people.push(extra(i, url));
  });
  const problems: ExpectedProblem[] = [3, 4, 5, 6, 7, 8].map((i) => [lineOf(i), "formula-cell"] as const);
  FORMULAS.url.forEach((_, i) => {
    problems.push([lineOf(STAYING.length + i), "formula-cell"]);
  });
  return { people, problems };
}

/** Files read with row problems (exit 3) or with a notice (exit 0). */
export function rowCases(): CorpusCase[] {
  const after = (rows: HrisPerson[]) => toCsv([...STAYING, ...rows]);
  const end = lineOf(STAYING.length);
  const staff7 = staying(7);
  const hostile = HOSTILE_URLS.map((url, i) => extra(100 + i, url));
  // A quoted cell with a line break spans two lines: later rows start one line further down.
  let breaks = 0;
  const hostileProblems = HOSTILE_URLS.map((url, i): ExpectedProblem => {
    const line = end + i + breaks;
    breaks += url.split("\n").length - 1;
    return [line, url.includes("ACoAA") ? "opaque-id-url" : "invalid-url"];
  });
  const jsonRecords: unknown[] = JSON.parse(toJson(STAYING)) as unknown[];
  jsonRecords.push(
    { networkUrl: 12345, name: "Number URL" },
    { networkUrl: { href: canonicalUrl("obj-url") }, name: "Object URL" },
    { networkUrl: [canonicalUrl("list-url")], name: "List URL" },
    { networkUrl: true, name: "Boolean URL" },
    7,
    null,
  );
  const first = STAYING.length + 1;
  return [
    {
      name: "a semicolon-separated file (read, with a notice)",
      file: "semicolons.csv",
      content: toCsv(STAYING, { delimiter: ";" }),
      code: 0,
      says: /semicolon-separated, not comma-separated; read it as such/,
    },
    {
      name: "a tab-separated file (read, with a notice)",
      file: "tabs.tsv",
      content: toCsv(STAYING, { delimiter: "\t" }),
      code: 0,
      says: /tab-separated/,
    },
    {
      name: "the same person twice",
      file: "twice.csv",
      content: after([staying(0)]),
      code: 3,
      says: /same person as line 2/,
      problems: [[end, "duplicate"]],
    },
    {
      name: "the same URL in another form",
      file: "url-forms.csv",
      content: after([{ ...staff7, employeeId: "E900007", url: " HTTP://UK.LinkedIn.com/in/STAFF-7/?trk=x " }]),
      code: 3,
      says: /same person as line 9/,
      problems: [[end, "duplicate"]],
    },
    {
      name: "one employee id with two URLs",
      file: "one-id-two-urls.csv",
      content: after([extra(50, canonicalUrl("staff-7-other"), { employeeId: staff7.employeeId })]),
      code: 3,
      says: /employee id "E000007" is also on line 9 with another profile URL/,
      problems: [[end, "duplicate-id"]],
      dryRun: true,
    },
    {
      name: "hostile URLs",
      file: "hostile.csv",
      content: after(hostile),
      code: 3,
      says: /not a web URL|not a LinkedIn URL/,
      problems: hostileProblems,
    },
    {
      name: "JSON numbers, objects, lists and booleans as cells, and records that are not objects",
      file: "cells.json",
      content: JSON.stringify(jsonRecords),
      code: 3,
      says: /holds an object, not text/,
      problems: [
        [first, "invalid-url"],
        [first + 1, "invalid-url"],
        [first + 2, "invalid-url"],
        [first + 3, "invalid-url"],
        [first + 4, "malformed-row"],
        [first + 5, "malformed-row"],
      ],
    },
  ];
}
