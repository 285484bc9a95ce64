import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import { z } from "zod";
import { RosterPullError } from "../../errors.js";
import { PageEnvelopeError, type PageList, readPageEnvelope } from "./page-envelope.js";

/**
 * BambooHR's answers as the bamboohr source reads them: the dataset's field list (small, parsed
 * whole), the dataset's data pages and the custom report (their rows found by readPageEnvelope and
 * kept as they came, the rest of the answer checked against the documented shape), and the writer
 * of the pulled document.
 */
const SOURCE = "bamboohr";

/** Both statuses, always: a person has left if either says so, and is in scope by the employment status. */
export const STATUS_FIELDS = ["status", "employmentHistoryStatus"] as const;

export const datasetFieldsPage = z.object({
  fields: z.array(z.object({ name: z.string() }).passthrough()),
  pagination: z
    .object({
      current_page: z.coerce.number().optional(),
      total_pages: z.coerce.number().optional(),
      next_page: z.string().nullish(),
    })
    .passthrough()
    .nullish(),
});

/** A data page of the datasets API (v2) but its rows, `data`. */
const datasetDataMembers = z.object({
  links: z.object({ next: z.string().nullish() }).passthrough().nullish(),
  meta: z
    .object({ page: z.coerce.number().optional(), totalPages: z.coerce.number().optional() })
    .passthrough()
    .nullish(),
});

/** The custom report but its people, `employees`. */
const customReportMembers = z.object({
  title: z.string().nullish(),
  fields: z.array(z.object({ id: z.coerce.string() }).passthrough()),
});

function shapeError(what: string, where: string, message: string): RosterPullError {
  return new RosterPullError(SOURCE, `${what} is not in the documented shape (${where}: ${message}); nothing was read`);
}

function notJson(what: string, message: string): RosterPullError {
  return new RosterPullError(SOURCE, `${what} is not whole JSON (${message}); nothing was read`);
}

function checked<T>(value: unknown, schema: z.ZodType<T>, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.join(".") : "the document";
  throw shapeError(what, where, issue?.message ?? "unexpected");
}

/** A small answer parsed whole and checked against its schema (the dataset's field list). */
export function parseJson<T>(text: string, schema: z.ZodType<T>, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw notJson(what, (error as Error).message);
  }
  return checked(value, schema, what);
}

/** An answer with rows under `listKey`: the other members checked, the rows found and kept raw. */
function readWithList<T>(
  body: Buffer,
  listKey: string,
  schema: z.ZodType<T>,
  what: string,
  unwrap?: string,
): { members: T; list: PageList } {
  let read: ReturnType<typeof readPageEnvelope>;
  try {
    read = readPageEnvelope(body, listKey, unwrap === undefined ? {} : { unwrap });
  } catch (error) {
    if (!(error instanceof PageEnvelopeError)) throw error;
    if (error.problem === "shape") throw shapeError(what, "the document", error.message);
    throw notJson(what, error.message);
  }
  if (read.list === undefined || read.list === null) throw shapeError(what, listKey, "expected a list");
  return { members: checked(read.members, schema, what), list: read.list };
}

/** The first record of a list, parsed (readPageEnvelope has checked it is an object). */
function firstRecord(list: PageList): Readonly<Record<string, unknown>> | undefined {
  return list.first === undefined ? undefined : (JSON.parse(list.first) as Record<string, unknown>);
}

/** One data page: its rows, the next page's link, or why the dataset cannot serve the pull. */
export type DataPage =
  | { readonly rows: PageList; readonly next: string | null | undefined }
  | { readonly unavailable: string };

/**
 * One page of Get Data from Dataset, each row's values taken out of its `fields` (the custom
 * report's shape). BambooHR leaves a field the key's user may not see out of every row alike, so
 * the first row of each page tells whether the rows carry both statuses.
 */
export function readDataPage(body: Buffer, page: number): DataPage {
  const what = `page ${page} of the employee dataset`;
  const { members, list } = readWithList(body, "data", datasetDataMembers, what, "fields");
  const record = firstRecord(list);
  const without = STATUS_FIELDS.filter((name) => record !== undefined && !Object.hasOwn(record, name));
  if (without.length > 0) {
    return { unavailable: `the employee dataset's rows come without ${without.join(", ")} (page ${page})` };
  }
  return { rows: list, next: members.links?.next };
}

/** The custom report: its people, and the status fields missing from them (hidden from the key's user). */
export function readReport(body: Buffer): { people: PageList; absent: string[] } {
  const { members, list } = readWithList(body, "employees", customReportMembers, "the custom report");
  // Each person carries one key per field BambooHR returned (the first tells for all); with
  // nobody in the report, its field list says which came back.
  const person = firstRecord(list);
  const listed = new Set(members.fields.map((field) => field.id));
  const absent = STATUS_FIELDS.filter((name) => (person ? !Object.hasOwn(person, name) : !listed.has(name)));
  return { people: list, absent };
}

const OPEN = Buffer.from('{"employees":[');
const FIRST = Buffer.from("\n");
const NEXT = Buffer.from(",\n");

/** The rows written one after the other into `{"employees": [...]}`, the custom report's own shape. */
export class EmployeesWriter {
  private readonly out: WriteStream;
  private failure: Error | undefined;
  private count = 0;

  constructor(path: string) {
    this.out = createWriteStream(path, { flags: "w", mode: 0o600 });
    this.out.on("error", (error) => {
      this.failure = error;
    });
    this.out.write(OPEN);
  }

  get records(): number {
    return this.count;
  }

  /** A page's rows as they came, in one write: parsing them to write them again cost more than the read. */
  async add(rows: PageList): Promise<void> {
    if (this.failure) throw this.failure;
    if (rows.count === 0) return;
    this.out.write(this.count === 0 ? FIRST : NEXT);
    this.count += rows.count;
    if (!this.out.write(rows.inner)) await once(this.out, "drain");
  }

  async finish(): Promise<void> {
    this.out.end("\n]}\n");
    await this.closed();
    if (this.failure) throw this.failure;
  }

  async abandon(): Promise<void> {
    if (!this.out.writableEnded) this.out.end();
    await this.closed();
  }

  private async closed(): Promise<void> {
    if (!this.out.closed) await once(this.out, "close");
  }
}
