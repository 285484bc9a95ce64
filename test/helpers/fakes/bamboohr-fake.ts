/**
 * A local fake of the parts of BambooHR's API the bamboohr roster source calls, written from
 * BambooHR's public documentation, on 127.0.0.1 (a port of its own), under
 * `/api/gateway.php/<companyDomain>/`:
 *
 * - Authentication: HTTP Basic, the API key as user name and any string as password; a request
 *   without it, or with a key BambooHR does not know, is a 401 (with `WWW-Authenticate: Basic`).
 *   https://documentation.bamboohr.com/docs/getting-started (Authentication),
 *   https://documentation.bamboohr.com/docs/planned-changes-to-the-api (2025-11-07 and 2026-02-17:
 *   "Basic Auth with the API key as the username and any string as the password"; the 401 challenge)
 * - Get Fields from Dataset (v1.2), `GET v1_2/datasets/{datasetName}/fields?page=&page_size=`:
 *   `{pagination: {total_records, current_page, total_pages, next_page, prev_page}, name, label,
 *   fields: [{name, label, parentType, parentName, entityName}]}`, 500 a page by default, 1000 at
 *   most; an unknown dataset is a 422 problem (`DATASET_NOT_FOUND`), no access a 403 problem.
 *   https://documentation.bamboohr.com/reference/get-fields-from-dataset-v12
 * - Get Data from Dataset (v2), `POST v2/datasets/{datasetName}/data` with a JSON body `{fields,
 *   filter?, orderBy?, page?, pageSize?}` (page from 1, pageSize 100 by default, 1000 at most):
 *   `{data: [{fields: {...}}], links: {next, prev}, meta: {page, pageSize, totalPages,
 *   totalItems}}`; missing or invalid parameters are a 400, a bad page value a 422, no access a
 *   403, an unknown dataset a 404, all as RFC 7807 problems. Future hires are Inactive here.
 *   https://documentation.bamboohr.com/reference/get-data-from-dataset-v2
 * - Request Custom Report, `POST v1/reports/custom?format=JSON` with `{title, fields, filters?}`,
 *   `Content-Type: application/json` exactly (any other content type is read as XML: 400
 *   "Malformed XML"); a `format` BambooHR does not know is a 404; more than 400 fields is a 400.
 *   It covers Active and Inactive employees; fields unknown or hidden from the key's user are left
 *   out silently (200). `{title, fields: [{id, type, name}], employees: [{id, <field>: ...}]}`.
 *   https://documentation.bamboohr.com/reference/request-custom-report
 * - Rate limiting: 429 (503 before 2026-09-16) with `Retry-After`.
 *   https://documentation.bamboohr.com/docs/planned-changes-to-the-api ("Rate Limiting Response
 *   Code Changing From 503 to 429"), https://documentation.bamboohr.com/docs/api-details
 * - Field names and labels: https://documentation.bamboohr.com/docs/list-of-field-names
 * - The OpenAPI description these follow: `specs/public.yaml` of
 *   https://github.com/BambooHR/bhr-api-python (operations get-fields-from-dataset-v1-2,
 *   get-data-from-dataset-v2, request-custom-report).
 *
 * Which names the employee dataset uses for the employment status and custom fields is not in
 * BambooHR's documentation; by default this fake's dataset knows the custom report's names, and a
 * test can take fields out of it (`datasetLacks`).
 *
 * It can be told to fail: refuse the dataset (403/404/422), answer 5xx on a page, cut a body short
 * (a declared Content-Length, or a chunked body without its terminator), redirect to another
 * host, rate-limit with 429/503 and Retry-After, hide fields from the key's user.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { registerSecret } from "../known-secrets.js";

export type FakeRecord = Readonly<Record<string, string | null>>;

/** The field catalogue the fake's account has: id -> [type, label]. */
const CATALOGUE: Readonly<Record<string, readonly [string, string]>> = {
  employeeNumber: ["text", "Employee #"],
  firstName: ["text", "First Name"],
  lastName: ["text", "Last Name"],
  displayName: ["text", "Display name"],
  lastNameFirstName: ["text", "Last Name, First Name"],
  status: ["status", "Status"],
  employmentHistoryStatus: ["list", "Employment Status"],
  hireDate: ["date", "Hire Date"],
  terminationDate: ["date", "Termination Date"],
  jobTitle: ["list", "Job Title"],
  department: ["list", "Department"],
  location: ["list", "Location"],
  workEmail: ["email", "Work Email"],
  supervisorEmail: ["email", "Supervisor email"],
  acaStatusCategory: ["text", "ACA Status"],
  customLinkedInURL: ["text", "LinkedIn URL"],
};

export interface Fault {
  /** Which calls: the dataset's field list, its data pages, or the custom report. */
  readonly on: "fields" | "data" | "report";
  /** The page (data pages, from 1); any page when unset. */
  readonly page?: number;
  /** How many times it happens before the call answers normally; always when unset. */
  times?: number;
  readonly kind:
    | { readonly status: number; readonly retryAfter?: string }
    | { readonly cut: "content-length" | "chunked" }
    | { readonly redirect: string };
}

export interface BambooHrFakeOptions {
  readonly companyDomain?: string;
  readonly apiKey?: string;
  readonly employees?: readonly FakeRecord[];
  /** Fields the employee dataset does not have (its own names differ, or it lacks them). */
  readonly datasetLacks?: readonly string[];
  /** Fields the API key's user may not see: left out of the report, the dataset and its field list. */
  readonly hidden?: readonly string[];
  /** The most rows the fake serves in a data page, whatever pageSize asks (to test paging). */
  readonly maxPageSize?: number;
  /** How the dataset refuses this key: both dataset endpoints answer this status. */
  readonly datasetRefusal?: 403 | 404 | 422;
}

export interface SeenRequest {
  readonly method: string;
  /** The path below `/api/gateway.php/<companyDomain>/`, with its query. */
  readonly path: string;
  readonly contentType: string | undefined;
  readonly body: unknown;
  readonly status: number;
}

export interface BambooHrFake {
  /** `http://127.0.0.1:<port>`: the source's baseUrl. */
  readonly url: string;
  readonly companyDomain: string;
  readonly apiKey: string;
  readonly requests: SeenRequest[];
  employees: readonly FakeRecord[];
  readonly faults: Fault[];
  options: Omit<BambooHrFakeOptions, "employees" | "companyDomain" | "apiKey">;
  close(): Promise<void>;
}

/** `count` people as BambooHR keeps them: `id`, then field id -> value (`0000-00-00` for no date). */
export function samplePeople(count: number, start = 0): FakeRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const n = start + i;
    return {
      id: String(100 + n),
      employeeNumber: String(1000 + n),
      firstName: "Person",
      lastName: `No${n}`,
      displayName: `Person No${n}`,
      status: "Active",
      employmentHistoryStatus: n % 3 === 0 ? "Part-Time" : "Full-Time",
      terminationDate: "0000-00-00",
      jobTitle: "Engineer",
      department: "Engineering",
      location: "Lisbon",
      workEmail: `person.${n}@example.com`,
      supervisorEmail: null,
      customLinkedInURL: `https://www.linkedin.com/in/bhr-person-${n}`,
    };
  });
}

function problem(res: ServerResponse, status: number, title: string, detail: string, code?: string): void {
  const body = JSON.stringify({ type: "about:blank", title, status, detail, ...(code ? { code } : {}) });
  res.writeHead(status, { "content-type": "application/problem+json", "x-request-id": "fake-request" });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Sends `text` as a 200, or cuts it short as the fault says. */
function send(res: ServerResponse, text: string, cut?: "content-length" | "chunked"): void {
  if (cut === undefined) {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  const half = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  const headers: Record<string, string | number> = { "content-type": "application/json" };
  if (cut === "content-length") headers["content-length"] = Buffer.byteLength(text);
  res.writeHead(200, headers);
  res.write(half, () => res.socket?.destroy());
}

export async function startBambooHrFake(options: BambooHrFakeOptions = {}): Promise<BambooHrFake> {
  const companyDomain = options.companyDomain ?? "acme";
  const apiKey = options.apiKey ?? `bhr_fake_${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  registerSecret(apiKey, "fake BambooHR API key");
  const prefix = `/api/gateway.php/${companyDomain}/`;
  const requests: SeenRequest[] = [];
  const faults: Fault[] = [];
  const { employees: initial, companyDomain: _d, apiKey: _k, ...rest } = options;
  const fake: BambooHrFake = {
    url: "",
    companyDomain,
    apiKey,
    requests,
    employees: initial ?? samplePeople(10),
    faults,
    options: rest,
    close: async () => {},
  };

  /** Fields the account has: the catalogue and whatever keys the people carry. */
  const accountFields = (): Set<string> => {
    const names = new Set(Object.keys(CATALOGUE));
    for (const e of fake.employees) for (const key of Object.keys(e)) if (key !== "id") names.add(key);
    for (const name of fake.options.hidden ?? []) names.delete(name);
    return names;
  };
  const datasetFields = (): string[] => {
    const lacks = new Set(fake.options.datasetLacks ?? []);
    return [...accountFields()].filter((name) => !lacks.has(name));
  };

  /** The first fault for this call that still has times left, used once. */
  const faultFor = (on: Fault["on"], page: number): Fault | undefined => {
    const fault = faults.find(
      (f) => f.on === on && (f.page === undefined || f.page === page) && (f.times === undefined || f.times > 0),
    );
    if (fault?.times !== undefined) fault.times -= 1;
    return fault;
  };

  /** Answers the fault, or returns the cut mode (or undefined) for the 200 to come. */
  const applyFault = (
    res: ServerResponse,
    fault: Fault | undefined,
    record: (status: number) => void,
  ): { handled: boolean; cut?: "content-length" | "chunked" } => {
    if (fault === undefined) return { handled: false };
    const kind = fault.kind;
    if ("status" in kind) {
      record(kind.status);
      res.writeHead(kind.status, {
        "content-type": "application/json",
        ...(kind.retryAfter === undefined ? {} : { "retry-after": kind.retryAfter }),
      });
      res.end(JSON.stringify({ error: { code: kind.status, message: "fault" } }));
      return { handled: true };
    }
    if ("redirect" in kind) {
      record(307);
      res.writeHead(307, { location: kind.redirect });
      res.end();
      return { handled: true };
    }
    record(200);
    return { handled: false, cut: kind.cut };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://fake");
    const raw = req.method === "POST" ? await readBody(req) : "";
    const entry = {
      method: req.method ?? "",
      path: `${url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname}${url.search}`,
      contentType: req.headers["content-type"],
      body: ((): unknown => {
        try {
          return raw ? JSON.parse(raw) : undefined;
        } catch {
          return raw;
        }
      })(),
      status: 0,
    };
    const record = (status: number) => requests.push({ ...entry, status });

    // Basic auth: the key as user name, any password.
    const auth = req.headers.authorization ?? "";
    const basic = /^Basic\s+(\S+)$/i.exec(auth);
    const user = basic
      ? Buffer.from(basic[1] ?? "", "base64")
          .toString("utf8")
          .split(":")[0]
      : undefined;
    if (user !== apiKey) {
      record(401);
      res.writeHead(401, { "www-authenticate": 'Basic realm="BambooHR"', "content-type": "text/html" });
      res.end("Unauthorized");
      return;
    }
    if (!url.pathname.startsWith(prefix)) {
      record(404);
      res.writeHead(404, { "content-type": "text/html" });
      res.end("Not Found");
      return;
    }
    const route = url.pathname.slice(prefix.length);

    const fieldsRoute = /^v1_2\/datasets\/([^/]+)\/fields$/.exec(route);
    if (fieldsRoute && req.method === "GET") {
      const page = Number(url.searchParams.get("page") ?? "1");
      const size = Math.min(1000, Math.max(1, Number(url.searchParams.get("page_size") ?? "500")));
      const fault = applyFault(res, faultFor("fields", page), record);
      if (fault.handled) return;
      if (fake.options.datasetRefusal === 403) {
        record(403);
        return problem(res, 403, "Forbidden", "Insufficient permissions to access dataset fields.");
      }
      if (fieldsRoute[1] !== "employee" || fake.options.datasetRefusal !== undefined) {
        record(422);
        return problem(res, 422, "Unprocessable Entity", "Dataset not found.", "DATASET_NOT_FOUND");
      }
      const names = datasetFields();
      const totalPages = Math.max(1, Math.ceil(names.length / size));
      const current = Math.min(Math.max(1, page), totalPages); // out-of-range pages are clamped
      const slice = names.slice((current - 1) * size, current * size);
      if (fault.cut === undefined) record(200);
      const link = (p: number) => `https://${companyDomain}.bamboohr.com/api/v1_2/datasets/employee/fields?page=${p}`;
      return send(
        res,
        JSON.stringify({
          pagination: {
            total_records: names.length,
            current_page: current,
            total_pages: totalPages,
            next_page: current < totalPages ? link(current + 1) : null,
            prev_page: current > 1 ? link(current - 1) : null,
          },
          name: "employee",
          label: "Employee",
          fields: slice.map((name) => ({
            name,
            label: CATALOGUE[name]?.[1] ?? name,
            parentType: "page",
            parentName: "Personal",
            entityName: "personal",
          })),
        }),
        fault.cut,
      );
    }

    const dataRoute = /^v2\/datasets\/([^/]+)\/data$/.exec(route);
    if (dataRoute && req.method === "POST") {
      const body = (typeof entry.body === "object" && entry.body !== null ? entry.body : {}) as {
        fields?: unknown;
        page?: unknown;
        pageSize?: unknown;
      };
      const page = body.page === undefined ? 1 : Number(body.page);
      const fault = applyFault(res, faultFor("data", page), record);
      if (fault.handled) return;
      if (fake.options.datasetRefusal === 403) {
        record(403);
        return problem(res, 403, "Forbidden", "Insufficient permissions to access the requested dataset.");
      }
      if (dataRoute[1] !== "employee" || fake.options.datasetRefusal !== undefined) {
        record(404);
        return problem(res, 404, "Not Found", "The specified dataset does not exist or is not accessible.");
      }
      if (!/^application\/json\b/i.test(entry.contentType ?? "") || typeof entry.body !== "object") {
        record(400);
        return problem(res, 400, "Bad Request", "The request body must be a JSON object.");
      }
      const fields = body.fields;
      if (!Array.isArray(fields) || fields.length === 0 || !fields.every((f) => typeof f === "string")) {
        record(400);
        return problem(res, 400, "Bad Request", "fields is required: a list of field names.");
      }
      const known = new Set(datasetFields());
      const unknown = fields.filter((f) => !known.has(f));
      if (unknown.length > 0) {
        record(400);
        return problem(res, 400, "Bad Request", `Invalid field(s): ${unknown.join(", ")}`);
      }
      const pageSize = body.pageSize === undefined ? 100 : Number(body.pageSize);
      if (!Number.isInteger(page) || page < 1 || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) {
        record(422);
        return problem(res, 422, "Unprocessable Entity", "Invalid pagination value.");
      }
      const size = Math.min(pageSize, fake.options.maxPageSize ?? 1000);
      const all = fake.employees;
      const totalPages = Math.max(1, Math.ceil(all.length / size));
      const rows = all.slice((page - 1) * size, page * size).map((e) => ({
        fields: Object.fromEntries(fields.map((f) => [f, e[f] ?? null])),
      }));
      const link = (p: number) => `https://${companyDomain}.bamboohr.com/api/v2/datasets/employee/data?page=${p}`;
      if (fault.cut === undefined) record(200);
      return send(
        res,
        JSON.stringify({
          data: rows,
          links: { next: page < totalPages ? link(page + 1) : null, prev: page > 1 ? link(page - 1) : null },
          meta: { page, pageSize: size, totalPages, totalItems: all.length },
        }),
        fault.cut,
      );
    }

    if (route === "v1/reports/custom" && req.method === "POST") {
      const format = (url.searchParams.get("format") ?? "").toLowerCase();
      const fault = applyFault(res, faultFor("report", 1), record);
      if (fault.handled) return;
      if (entry.contentType !== "application/json") {
        record(400);
        res.writeHead(400, { "content-type": "text/html" });
        res.end("Malformed XML");
        return;
      }
      if (format !== "json") {
        record(404);
        res.writeHead(404, { "content-type": "text/html" });
        res.end("Report format not found");
        return;
      }
      const body = entry.body as { title?: unknown; fields?: unknown } | undefined;
      const asked = Array.isArray(body?.fields) ? body.fields.filter((f): f is string => typeof f === "string") : [];
      if (typeof body !== "object" || asked.length > 400) {
        record(400);
        res.writeHead(400, { "content-type": "text/html" });
        res.end("Bad request");
        return;
      }
      const account = accountFields();
      const shown = [...new Set(asked)].filter((f) => account.has(f));
      if (fault.cut === undefined) record(200);
      return send(
        res,
        JSON.stringify({
          title: typeof body.title === "string" ? body.title : "Report",
          fields: shown.map((id) => ({ id, type: CATALOGUE[id]?.[0] ?? "text", name: CATALOGUE[id]?.[1] ?? id })),
          employees: fake.employees.map((e) => ({
            id: e.id ?? null,
            ...Object.fromEntries(shown.map((f) => [f, e[f] ?? null])),
          })),
        }),
        fault.cut,
      );
    }

    record(404);
    res.writeHead(404, { "content-type": "text/html" });
    res.end("Not Found");
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return fake;
}
