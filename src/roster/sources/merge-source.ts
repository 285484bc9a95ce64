import { open } from "node:fs/promises";
import { z } from "zod";
import { RosterPullError, RosterSourceAuthError } from "../../errors.js";
import { type HttpPullOptions, httpGet, pullOptions } from "./http-pull.js";
import { PageEnvelopeError, type PageList, readPageEnvelope } from "./page-envelope.js";
import { PulledSource } from "./pulled-source.js";
import type { PulledExport, RosterSource } from "./roster-source.js";
import type { SourceConfig } from "./source-secrets.js";

type MergeConfig = Extract<SourceConfig, { type: "merge" }>;

/** The employee list of Merge's unified HRIS API, under the API's origin. */
export const MERGE_EMPLOYEES_PATH = "/api/hris/v1/employees";
/** Merge's largest page ("Number of results to return per page. The maximum limit is 100."). */
export const MERGE_PAGE_SIZE = 100;
/**
 * The relations the merge preset reads: the employment (type and title: tells contractors and
 * interns apart), the groups (the DEPARTMENT's name), the manager (a whole Employee: the email)
 * and the work location. Without them Merge sends ids and everybody counts as an employee.
 * In the order of Merge's OpenAPI, whose `expand` enum lists each combination once, in one order
 * (`employments,groups,work_location,manager` among them).
 */
export const MERGE_EXPAND = "employments,groups,work_location,manager";
/** A cursor loop or a list that never ends stops here (100 a page: 2,000,000 people, roster.maxRows' default). */
const MAX_PAGES = 20_000;
/** The pulled export's file name in the pull store. */
const FILE = "merge.json";

/**
 * One page of `GET /api/hris/v1/employees`: `{ next, previous, results }` (Merge's
 * `PaginatedEmployeeList`), its members but `results`. `next` is the cursor of the following page,
 * null (or empty) on the last; `results` (a list of objects, or null on an empty list) is read by
 * readPageEnvelope and its people kept as they come, byte for byte.
 */
const pageSchema = z.object({
  next: z.string().nullable().optional(),
  previous: z.string().nullable().optional(),
});

interface MergePage {
  readonly next: string | null | undefined;
  readonly results: PageList | null;
}

/**
 * The API's origin and any path before `/api` (a proxy's prefix), without a trailing slash: both
 * `https://api.merge.dev` and the SDKs' `https://api.merge.dev/api` name the same API.
 */
function employeesUrl(baseUrl: string): URL {
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, "").replace(/\/api$/, "");
  return new URL(`${base.origin}${prefix}${MERGE_EMPLOYEES_PATH}`);
}

/**
 * Merge's unified HRIS API (`roster.source.type: merge`): every page of the linked account's
 * employees, people deleted in the HRIS included (`include_deleted_data=true`) and the relations
 * the merge preset reads expanded, joined into one document `{"results": [...]}` that the preset
 * reads like a saved export. Calls carry the organisation's API key (`Authorization: Bearer`,
 * MERGE_API_KEY) and the linked account's token (`X-Account-Token`, MERGE_ACCOUNT_TOKEN).
 *
 * Only a whole list is an export: a page that fails after the retries of httpGet, a page cut short
 * or a page that is not Merge's list fails the pull, and the last complete pull stays as it was.
 */
export class MergeSource extends PulledSource<MergeConfig> implements RosterSource {
  readonly type = "merge" as const;

  async pull(signal?: AbortSignal): Promise<PulledExport> {
    const headers = this.headers();
    const first = employeesUrl(this.config.baseUrl);
    first.searchParams.set("page_size", String(MERGE_PAGE_SIZE));
    first.searchParams.set("include_deleted_data", "true");
    first.searchParams.set("expand", MERGE_EXPAND);
    const origin = `${first.origin}${first.pathname}`;
    const options = pullOptions("merge", this.http, this.config, signal);
    const temporary = await this.store.temporary(FILE);
    try {
      const out = await open(temporary, "w", 0o600);
      let facts: { pages: number; records: number; bytes: number };
      try {
        facts = await this.readPages(first, headers, options, async (parts) => {
          await out.writev(parts);
        });
      } finally {
        await out.close();
      }
      const file = await this.store.commit(temporary, FILE, this.now());
      return { file, format: "json", origin, facts };
    } catch (error) {
      await this.store.discard(temporary);
      throw error;
    }
  }

  /** Follows `next` from the first page to the last, writing `{"results":[...]}` as it goes. */
  private async readPages(
    first: URL,
    headers: Readonly<Record<string, string>>,
    options: HttpPullOptions,
    write: (parts: Buffer[]) => Promise<void>,
  ): Promise<{ pages: number; records: number; bytes: number }> {
    const origin = `${first.origin}${first.pathname}`;
    const cursors = new Set<string>();
    let url = first;
    let pages = 0;
    let records = 0;
    let written = 0;
    const emit = async (...parts: Buffer[]) => {
      for (const part of parts) written += part.length;
      if (written > this.config.maxBytes) {
        throw new RosterPullError(
          "merge",
          `${origin}: the employee list is longer than ${this.config.maxBytes} bytes (roster.source.maxBytes); nothing was read`,
        );
      }
      await write(parts);
    };
    await emit(Buffer.from('{"results":['));
    for (;;) {
      if (options.signal?.aborted) {
        throw new RosterPullError("merge", `${origin}: stopped after ${pages} pages; nothing was read`);
      }
      if (pages === MAX_PAGES) {
        throw new RosterPullError("merge", `${origin}: more than ${MAX_PAGES} pages; nothing was read`);
      }
      const answer = await httpGet(url.toString(), headers, "bytes", options);
      pages += 1;
      const page = readPage(answer.body, origin, pages);
      // The page's people as they came, in one write per page: parsing them to write them out
      // again cost more than reading the export afterwards.
      if (page.results !== null && page.results.count > 0) {
        await emit(records === 0 ? NEWLINE : COMMA_NEWLINE, page.results.inner);
        records += page.results.count;
      }
      const next = page.next ?? "";
      if (next === "") break;
      if (cursors.has(next)) {
        throw new RosterPullError(
          "merge",
          `${origin}: page ${pages} points back to a page already read (its next cursor repeats); nothing was read`,
        );
      }
      cursors.add(next);
      // Merge: every query parameter but cursor and page_size stays the same from page to page.
      url = new URL(first);
      url.searchParams.set("cursor", next);
    }
    await emit(Buffer.from("\n]}\n"));
    return { pages, records, bytes: written };
  }

  /** The API key as a Bearer token and the linked account's token; both are needed for every call. */
  private headers(): Record<string, string> {
    const { apiKey, accountToken } = this.secrets;
    if (!apiKey || !accountToken) {
      const missing = [
        ...(apiKey ? [] : ["MERGE_API_KEY (the Merge API key, or roster.source.apiKey)"]),
        ...(accountToken ? [] : ["MERGE_ACCOUNT_TOKEN (the linked account's token, or roster.source.accountToken)"]),
      ];
      throw new RosterSourceAuthError("merge", `set ${missing.join(" and ")}: every call to Merge needs both`);
    }
    return {
      accept: "application/json",
      authorization: `Bearer ${apiKey}`,
      "x-account-token": accountToken,
    };
  }
}

const NEWLINE = Buffer.from("\n");
const COMMA_NEWLINE = Buffer.from(",\n");

/** One page as Merge's paginated list, or the pull fails naming the page. */
function readPage(body: Buffer, origin: string, number: number): MergePage {
  const notList = (why: string) =>
    new RosterPullError(
      "merge",
      `${origin}: page ${number} is not Merge's employee list ({next, previous, results}): ${why}; nothing was read`,
    );
  let read: ReturnType<typeof readPageEnvelope>;
  try {
    read = readPageEnvelope(body, "results");
  } catch (error) {
    if (!(error instanceof PageEnvelopeError)) throw error;
    if (error.problem === "shape") throw notList(error.message);
    throw new RosterPullError("merge", `${origin}: page ${number} is not JSON (${error.message}); nothing was read`);
  }
  if (read.list === undefined) throw notList("it has no results");
  const page = pageSchema.safeParse(read.members);
  if (!page.success) {
    const issue = page.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    throw notList(`${issue?.message ?? "unexpected shape"}${where}`);
  }
  return { next: page.data.next, results: read.list };
}
