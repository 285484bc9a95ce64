import { writeFile } from "node:fs/promises";
import { RosterPullError, RosterSourceAuthError } from "../../errors.js";
import { bamboohrPreset } from "../presets/bamboohr.js";
import {
  datasetFieldsPage,
  EmployeesWriter,
  parseJson,
  readDataPage,
  readReport,
  STATUS_FIELDS,
} from "./bamboohr-pages.js";
import { type HttpAnswer, type HttpPullOptions, httpRequest, pullOptions } from "./http-pull.js";
import { PulledSource } from "./pulled-source.js";
import type { PulledExport, RosterSource } from "./roster-source.js";
import type { SourceConfig } from "./source-secrets.js";

type BambooHrConfig = Extract<SourceConfig, { type: "bamboohr" }>;

const SOURCE = "bamboohr";
/** The pulled export's name in the pull store. */
export const BAMBOOHR_EXPORT = "bamboohr.json";
const DATASET = "employee";
/** Rows per page of the datasets API (v2): its maximum. */
const DATA_PAGE_SIZE = 1000;
/** Field descriptors per page of Get Fields from Dataset (v1.2): its maximum. */
const FIELDS_PAGE_SIZE = 1000;
/** A bound on the pages of one pull (10 million rows at 1,000 a page), so no loop runs forever. */
const MAX_PAGES = 10_000;
/** What the dataset endpoints answer when they cannot serve this pull; then the custom report is asked. */
const DATASET_REFUSALS = [400, 403, 404, 422] as const;
const REPORT_TITLE = "retention-sync roster";

export { STATUS_FIELDS };

/** The LinkedIn fields the bamboohr preset reads (their API names, not the CSV labels). */
export const PROFILE_URL_FIELDS: readonly string[] = (bamboohrPreset.fields.profileUrl ?? []).filter((name) =>
  /^[A-Za-z][A-Za-z0-9]*$/.test(name),
);

/** The rest of what the preset reads: identity, names, email, place in the company, manager, end date. */
export const PERSON_FIELDS = [
  "employeeNumber",
  "firstName",
  "lastName",
  "displayName",
  "workEmail",
  "department",
  "jobTitle",
  "location",
  "supervisorEmail",
  "terminationDate",
] as const;

/** Every field the custom report is asked for: BambooHR leaves out, without an error, those it does not know. */
export function requestedFields(extra: readonly string[]): string[] {
  return [...new Set([...PROFILE_URL_FIELDS, ...PERSON_FIELDS, ...STATUS_FIELDS, ...extra])];
}

/** Why the dataset could not serve the pull: the custom report is asked instead. */
class DatasetUnavailable {
  constructor(readonly reason: string) {}
}

type Facts = Record<string, string | number | boolean>;

/**
 * BambooHR's API, with the API key of a BambooHR user (Basic auth, the key as user name and `x` as
 * password), under `<baseUrl>/api/gateway.php/<companyDomain>/`:
 *
 * 1. The employee dataset: Get Fields from Dataset (v1.2), `GET v1_2/datasets/employee/fields`,
 *    says which of the wanted fields it has; Get Data from Dataset (v2),
 *    `POST v2/datasets/employee/data` with `{"fields": [...], "page": n, "pageSize": 1000}`, answers
 *    `{"data": [{"fields": {...}}], "links": {"next": ...}, "meta": {...}}`; pages are asked for
 *    while `links.next` names one (by the page number in the body: the key is never sent to the
 *    link's host).
 * 2. The custom report, `POST v1/reports/custom?format=JSON&onlyCurrent=true`, when the dataset
 *    cannot serve the pull: either dataset endpoint answers 400, 403, 404 or 422 (its first page),
 *    the dataset lacks `status`, `employmentHistoryStatus`, a field named in `fields` or any
 *    LinkedIn field, or its rows come without both statuses.
 *
 * The export is one JSON document, `{"employees": [...]}` with the custom report's keys (the people
 * as BambooHR sent them, a dataset row's values taken out of its `fields`), that the bamboohr
 * preset reads. A 401 anywhere, or a 403 from the custom report, is a refused credential
 * (exit 2); so is a report that comes back without either status field (BambooHR leaves out, with
 * no error, the fields the key's user may not see). Anything else that does not end in every page
 * read whole fails the pull (exit 1) and nothing is reconciled.
 */
export class BambooHrSource extends PulledSource<BambooHrConfig> implements RosterSource {
  readonly type = "bamboohr" as const;

  async pull(signal?: AbortSignal): Promise<PulledExport> {
    const apiKey = this.secrets.apiKey;
    if (!apiKey) {
      throw new RosterSourceAuthError(
        SOURCE,
        "no API key: set BAMBOOHR_API_KEY (or roster.source.apiKey) to the key of a BambooHR user who may see every field pulled",
      );
    }
    const options = pullOptions(SOURCE, this.http, this.config, signal);
    const headers = {
      accept: "application/json",
      authorization: `Basic ${Buffer.from(`${apiKey}:x`).toString("base64")}`,
    };
    const temporary = await this.store.temporary(BAMBOOHR_EXPORT);
    try {
      let pulled = await this.pullDataset(temporary, headers, options);
      if (pulled instanceof DatasetUnavailable) {
        const reason = pulled.reason;
        pulled = await this.pullReport(temporary, headers, options);
        pulled.facts.fallback = reason;
      }
      const file = await this.store.commit(temporary, BAMBOOHR_EXPORT, this.now());
      return { file, format: "json", origin: pulled.origin, facts: pulled.facts };
    } catch (error) {
      await this.store.discard(temporary);
      throw error;
    }
  }

  /** `<baseUrl>/api/gateway.php/<companyDomain>/<path>`. */
  private url(path: string): string {
    const base = this.config.baseUrl.replace(/\/+$/, "");
    return `${base}/api/gateway.php/${encodeURIComponent(this.config.companyDomain)}/${path}`;
  }

  /**
   * POSTs `body` as JSON, the answer as bytes. `Content-Type: application/json` exactly: BambooHR
   * reads any other content type as XML. `answerStatuses`: error statuses answered, not thrown.
   */
  private postJson(
    path: string,
    headers: Readonly<Record<string, string>>,
    options: HttpPullOptions,
    body: unknown,
    answerStatuses?: readonly number[],
  ): Promise<HttpAnswer> {
    return httpRequest(this.url(path), { ...headers, "content-type": "application/json" }, "bytes", options, {
      method: "POST",
      body: JSON.stringify(body),
      ...(answerStatuses === undefined ? {} : { answerStatuses }),
    });
  }

  private shown(path: string): string {
    const url = new URL(this.url(path));
    return `${url.origin}${url.pathname}`;
  }

  /** The dataset's field names, or why the dataset cannot be used. */
  private async datasetFields(
    headers: Readonly<Record<string, string>>,
    options: HttpPullOptions,
  ): Promise<Set<string> | DatasetUnavailable> {
    const names = new Set<string>();
    for (let page = 1; page <= MAX_PAGES; page += 1) {
      const path = `v1_2/datasets/${DATASET}/fields?page=${page}&page_size=${FIELDS_PAGE_SIZE}`;
      const answer = await httpRequest(this.url(path), headers, "text", options, {
        answerStatuses: page === 1 ? DATASET_REFUSALS : [],
      });
      if (answer.status !== 200) {
        return new DatasetUnavailable(`${this.shown(path)} answered ${answer.status}${problemTitle(answer)}`);
      }
      const body = parseJson(answer.text, datasetFieldsPage, `the employee dataset's field list (page ${page})`);
      for (const field of body.fields) names.add(field.name);
      const current = body.pagination?.current_page ?? page;
      const total = body.pagination?.total_pages ?? current;
      if (current >= total || body.fields.length === 0) return names;
    }
    throw new RosterPullError(SOURCE, `the employee dataset's field list runs past ${MAX_PAGES} pages`);
  }

  private async pullDataset(
    temporary: string,
    headers: Readonly<Record<string, string>>,
    options: HttpPullOptions,
  ): Promise<{ origin: string; facts: Facts } | DatasetUnavailable> {
    const known = await this.datasetFields(headers, options);
    if (known instanceof DatasetUnavailable) return known;
    const needed = [...STATUS_FIELDS, ...this.config.fields];
    const missing = needed.filter((name) => !known.has(name));
    if (missing.length > 0) {
      return new DatasetUnavailable(`the employee dataset has no field ${missing.join(", ")}`);
    }
    const profile = PROFILE_URL_FIELDS.filter((name) => known.has(name));
    if (profile.length === 0 && this.config.fields.length === 0) {
      return new DatasetUnavailable(
        `the employee dataset has none of the LinkedIn fields ${PROFILE_URL_FIELDS.join(", ")} (name yours in roster.source.fields)`,
      );
    }
    const fields = [
      ...new Set([
        ...profile,
        ...PERSON_FIELDS.filter((name) => known.has(name)),
        ...needed,
        ...(known.has("id") ? ["id"] : []),
      ]),
    ];
    const path = `v2/datasets/${DATASET}/data`;
    const writer = new EmployeesWriter(temporary);
    let bytes = 0;
    try {
      for (let page = 1; page <= MAX_PAGES; page += 1) {
        const answer = await this.postJson(
          path,
          headers,
          options,
          { fields, page, pageSize: DATA_PAGE_SIZE },
          page === 1 ? DATASET_REFUSALS : [],
        );
        if (answer.status !== 200) {
          await writer.abandon();
          return new DatasetUnavailable(`${this.shown(path)} answered ${answer.status}${problemTitle(answer)}`);
        }
        bytes += answer.bytes;
        if (bytes > this.config.maxBytes) {
          throw new RosterPullError(
            SOURCE,
            `the employee dataset's pages add up to more than ${this.config.maxBytes} bytes (roster.source.maxBytes); nothing was read`,
          );
        }
        const read = readDataPage(answer.body, page);
        if ("unavailable" in read) {
          await writer.abandon();
          return new DatasetUnavailable(read.unavailable);
        }
        await writer.add(read.rows);
        const next = read.next;
        if (next === undefined || next === null || next === "") {
          await writer.finish();
          return {
            origin: this.shown(path),
            facts: { endpoint: "employee dataset (v2)", pages: page, records: writer.records, bytes },
          };
        }
        if (read.rows.count === 0) {
          throw new RosterPullError(
            SOURCE,
            `page ${page} of the employee dataset has no rows but links to a next page; the pull stops rather than loop`,
          );
        }
      }
      throw new RosterPullError(SOURCE, `the employee dataset runs past ${MAX_PAGES} pages`);
    } catch (error) {
      await writer.abandon();
      throw error;
    }
  }

  private async pullReport(
    temporary: string,
    headers: Readonly<Record<string, string>>,
    options: HttpPullOptions,
  ): Promise<{ origin: string; facts: Facts }> {
    const path = "v1/reports/custom?format=JSON&onlyCurrent=true";
    const answer = await this.postJson(path, headers, options, {
      title: REPORT_TITLE,
      fields: requestedFields(this.config.fields),
    });
    const { people, absent } = readReport(answer.body);
    if (absent.length > 0) {
      throw new RosterSourceAuthError(
        SOURCE,
        `the custom report came back without ${absent.join(" and ")}: BambooHR leaves out the fields the API key's user may not see. ` +
          "Give that user access to Status and Employment Status (and the LinkedIn field); nothing was read",
      );
    }
    // The report is the export as it came: its bytes are written, never parsed and written again.
    await writeFile(temporary, answer.body, { flag: "w", mode: 0o600 });
    return {
      origin: this.shown(path),
      facts: { endpoint: "custom report", pages: 1, records: people.count, bytes: answer.bytes },
    };
  }
}

/** `: Not Found` from an RFC 7807 problem's title, when the answer has one. */
function problemTitle(answer: HttpAnswer): string {
  try {
    const problem = JSON.parse(answer.text) as { title?: unknown; code?: unknown };
    const words = [problem.code, problem.title].filter((w): w is string => typeof w === "string" && w.length > 0);
    return words.length > 0 ? ` (${words.join(": ").slice(0, 120)})` : "";
  } catch {
    return "";
  }
}
