/**
 * A local fake of Merge's unified HRIS API, the one call the `merge` roster source makes:
 * `GET /api/hris/v1/employees`, on 127.0.0.1 (node:http, port 0). Built from Merge's public
 * documentation and its generated Node SDK:
 *
 * - List employees (query parameters `cursor`, `page_size` "The maximum limit is 100",
 *   `include_deleted_data`, `expand` "comma separated without spaces"; the answer
 *   `{next, previous, results}`):
 *   https://docs.merge.dev/merge-unified/hris/common-models/employees/list
 *   https://docs-new.merge.dev/merge-unified/hris/common-models/employees/list
 * - The Employee object (its keys, relations as ids unless expanded, `remote_was_deleted`,
 *   `field_mappings.organization_defined_targets` / `linked_account_defined_targets`):
 *   https://docs-new.merge.dev/merge-unified/hris/common-models/employees/the-employee-object
 * - Pagination (the `next` cursor is sent back as `cursor`; every other query parameter stays the
 *   same from page to page; `next` null on the last page):
 *   https://docs.merge.dev/basics/pagination
 * - Authentication (`Authorization: Bearer <API key>` and `X-Account-Token: <linked account token>`
 *   on every call): https://docs.merge.dev/basics/authentication
 * - Errors (401 when authorization "is either missing or misconfigured", the account token
 *   included; 429 when a linked account's rate limit is reached):
 *   https://help.merge.dev/en/articles/9660257-what-error-codes-can-i-expect-from-merge-and-how-do-i-handle-them
 * - Rate limits (per linked account, per minute): https://docs.merge.dev/basics/rate-limits/
 * - The Node SDK, generated from Merge's OpenAPI (`EmployeesListRequest`, the `expand` items,
 *   `PaginatedEmployeeList`, the list's wire test, `Employment`, `Group`, `Location`; the pager
 *   reads `next` as the next `cursor`): https://github.com/merge-api/merge-node-client
 *   (src/api/resources/hris/resources/employees/client/Client.ts, tests/wire/HRIS/employees.test.ts)
 *
 * The fake's own choices where the documentation says nothing: error bodies are `{"detail": ...}`;
 * a `page_size` over 100, an unknown `expand` relation or a cursor it never gave out is a 400 (so
 * a client that breaks Merge's rules fails here rather than being silently corrected). Retry-After
 * on a 429 is what a test asks for.
 *
 * Faults are queued per page (1 = the first page): a status (5xx, 429 with Retry-After, 401), a
 * body cut short (a declared Content-Length and the connection closed early, or a chunked body
 * ended without its terminator), a redirect, or a 200 whose body is not the list.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { registerSecret } from "../known-secrets.js";
import { canonicalUrl, type HrisPerson } from "../roster-files.js";

export const MERGE_MAX_PAGE_SIZE = 100;
/** Merge's `expand` relations of the employee list (the SDK's `EmployeesListRequestExpandItem`). */
const EXPANDABLE = new Set([
  "company",
  "employments",
  "groups",
  "home_location",
  "manager",
  "pay_group",
  "team",
  "work_location",
]);

export type MergeEmploymentStatus = "ACTIVE" | "PENDING" | "INACTIVE";
export type MergeEmploymentType = "FULL_TIME" | "PART_TIME" | "INTERN" | "CONTRACTOR" | "FREELANCE";

/** One person of the linked account's HRIS, as the fake renders it into Merge's Employee. */
export interface MergeFakePerson {
  readonly remoteId: string;
  readonly employeeNumber: string | null;
  readonly firstName: string;
  readonly lastName: string;
  readonly workEmail: string | null;
  readonly employmentStatus: MergeEmploymentStatus;
  /** ISO date-time; a passed one means the person left. */
  readonly terminationDate?: string | null;
  /** Deleted in the HRIS: listed (`remote_was_deleted: true`) only with `include_deleted_data=true`. */
  readonly deleted?: boolean;
  readonly employmentType?: MergeEmploymentType;
  readonly jobTitle?: string;
  readonly department?: string;
  readonly location?: string;
  /** The manager's `remoteId`. */
  readonly managerRemoteId?: string;
  /** The value of the organisation-wide Field Mapping target `linkedin_url`. */
  readonly linkedin?: string;
}

export type MergeFault =
  | { readonly kind: "status"; readonly status: number; readonly retryAfter?: string }
  | { readonly kind: "cut"; readonly how: "content-length" | "chunked" }
  | { readonly kind: "redirect"; readonly location: string }
  | { readonly kind: "body"; readonly body: string };

export interface MergeFakeRequest {
  readonly method: string;
  readonly path: string;
  /** The query parameters (the cursor included); never the headers. */
  readonly query: Readonly<Record<string, string>>;
  /** The page asked for (1 = the first), when the cursor was the fake's. */
  readonly page: number | undefined;
  readonly status: number;
  /** Whether both credentials were the fake's. */
  readonly authorized: boolean;
}

export interface MergeFake {
  /** The API's origin, `http://127.0.0.1:<port>`: `roster.source.baseUrl`. */
  readonly url: string;
  readonly apiKey: string;
  readonly accountToken: string;
  /** The linked account's people, in the order Merge lists them. */
  people: MergeFakePerson[];
  /** The next `times` answers for page `page` (1 = the first) are this fault. */
  fail(page: number, fault: MergeFault, times?: number): void;
  readonly requests: MergeFakeRequest[];
  close(): Promise<void>;
}

/** A stable UUID-shaped id for a name, as Merge gives every object one. */
function uuid(name: string): string {
  const hex = createHash("sha256").update(name).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const SYNCED = "2026-01-10T08:15:22.413912Z";
const COMPANY = uuid("company");

function noMappings() {
  return { organization_defined_targets: {}, linked_account_defined_targets: {} };
}

function employment(person: MergeFakePerson) {
  return {
    id: uuid(`employment:${person.remoteId}`),
    remote_id: `pos-${person.remoteId}`,
    created_at: SYNCED,
    modified_at: SYNCED,
    employee: uuid(`employee:${person.remoteId}`),
    job_title: person.jobTitle ?? null,
    pay_rate: null,
    pay_period: null,
    pay_frequency: null,
    pay_currency: null,
    pay_group: null,
    flsa_status: null,
    effective_date: "2023-01-01T00:00:00Z",
    employment_type: person.employmentType ?? null,
    remote_was_deleted: false,
    field_mappings: noMappings(),
    remote_data: null,
  };
}

function group(name: string) {
  return {
    id: uuid(`group:${name}`),
    remote_id: `dept-${name.toLowerCase()}`,
    created_at: SYNCED,
    modified_at: SYNCED,
    parent_group: null,
    name,
    type: "DEPARTMENT",
    is_commonly_used_as_team: false,
    remote_was_deleted: false,
    field_mappings: noMappings(),
    remote_data: null,
  };
}

function location(name: string) {
  return {
    id: uuid(`location:${name}`),
    remote_id: `loc-${name.toLowerCase()}`,
    created_at: SYNCED,
    modified_at: SYNCED,
    name,
    phone_number: null,
    city: name,
    state: null,
    zip_code: null,
    country: null,
    location_type: "WORK",
    remote_was_deleted: false,
    field_mappings: noMappings(),
    remote_data: null,
  };
}

/** Merge's Employee: relations as ids, or whole objects for those in `expand`. */
function employee(
  person: MergeFakePerson,
  expand: ReadonlySet<string>,
  byRemoteId: ReadonlyMap<string, MergeFakePerson>,
): Record<string, unknown> {
  const manager = person.managerRemoteId === undefined ? undefined : byRemoteId.get(person.managerRemoteId);
  return {
    id: uuid(`employee:${person.remoteId}`),
    remote_id: person.remoteId,
    created_at: SYNCED,
    modified_at: SYNCED,
    employee_number: person.employeeNumber,
    company: COMPANY,
    first_name: person.firstName,
    last_name: person.lastName,
    preferred_name: null,
    display_full_name: `${person.firstName} ${person.lastName}`,
    username: null,
    groups:
      person.department === undefined
        ? []
        : [expand.has("groups") ? group(person.department) : uuid(`group:${person.department}`)],
    work_email: person.workEmail,
    personal_email: null,
    mobile_phone_number: null,
    employments: [expand.has("employments") ? employment(person) : uuid(`employment:${person.remoteId}`)],
    home_location: null,
    work_location:
      person.location === undefined
        ? null
        : expand.has("work_location")
          ? location(person.location)
          : uuid(`location:${person.location}`),
    // An expanded manager is a whole Employee whose own relations are ids.
    manager:
      manager === undefined
        ? null
        : expand.has("manager")
          ? employee(manager, new Set(), byRemoteId)
          : uuid(`employee:${manager.remoteId}`),
    team: null,
    pay_group: null,
    ssn: null,
    gender: null,
    ethnicity: null,
    marital_status: null,
    date_of_birth: null,
    hire_date: "2022-03-01T00:00:00Z",
    start_date: "2022-03-01T00:00:00Z",
    remote_created_at: "2022-03-01T09:30:00Z",
    employment_status: person.employmentStatus,
    termination_date: person.terminationDate ?? null,
    avatar: null,
    custom_fields: null,
    remote_was_deleted: person.deleted === true,
    field_mappings: {
      organization_defined_targets: person.linkedin === undefined ? {} : { linkedin_url: person.linkedin },
      linked_account_defined_targets: {},
    },
    remote_data: null,
  };
}

/** The test world's generated people (test/helpers/roster-files.ts) as the linked account's HRIS. */
export function mergePeople(people: readonly HrisPerson[]): MergeFakePerson[] {
  return people.map((p) => {
    const [first, ...rest] = p.name.split(" ");
    return {
      remoteId: p.employeeId,
      employeeNumber: p.employeeId,
      firstName: first ?? p.name,
      lastName: rest.join(" "),
      workEmail: p.email,
      employmentStatus: "ACTIVE",
      employmentType: "FULL_TIME",
      jobTitle: p.title,
      department: p.department,
      location: p.location,
      linkedin: p.url ?? canonicalUrl(p.slug),
    };
  });
}

/** The cursor the fake gives out for the page starting at `offset` (opaque to clients, as Merge's). */
export function mergeCursor(offset: number): string {
  return Buffer.from(`o=${offset}`).toString("base64url");
}

function offsetOf(cursor: string): number | undefined {
  const match = /^o=(\d+)$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  return match ? Number(match[1]) : undefined;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export interface MergeFakeOptions {
  /** Each page of the list is answered this long after its request (a vendor's latency; 0: at once). */
  readonly pageDelayMs?: number;
}

export async function startMergeFake(
  people: MergeFakePerson[] = [],
  options: MergeFakeOptions = {},
): Promise<MergeFake> {
  const apiKey = `merge_test_${randomBytes(18).toString("base64url")}`;
  const accountToken = `acct_${randomBytes(18).toString("base64url")}`;
  registerSecret(apiKey, "fake Merge API key");
  registerSecret(accountToken, "fake Merge linked account token");
  const faults = new Map<number, MergeFault[]>();
  const requests: MergeFakeRequest[] = [];

  /**
   * The people a pull pages through, taken at its first page: later pages read the same list, as
   * a cursor of Merge's does (and 100,000 people are not filtered and indexed again per page).
   */
  let pinned:
    | { includeDeleted: boolean; listed: MergeFakePerson[]; byRemoteId: Map<string, MergeFakePerson> }
    | undefined;
  const listing = (offset: number, includeDeleted: boolean) => {
    if (offset === 0 || pinned?.includeDeleted !== includeDeleted) {
      pinned = {
        includeDeleted,
        listed: fake.people.filter((p) => p.deleted !== true || includeDeleted),
        byRemoteId: new Map(fake.people.map((p) => [p.remoteId, p])),
      };
    }
    return pinned;
  };

  const fake: MergeFake = {
    url: "",
    apiKey,
    accountToken,
    people,
    fail(page, fault, times = 1) {
      const queue = faults.get(page) ?? [];
      for (let i = 0; i < times; i += 1) queue.push(fault);
      faults.set(page, queue);
    },
    requests,
    close: async () => undefined,
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? "/", "http://fake");
    const query = Object.fromEntries(url.searchParams);
    const authorized =
      req.headers.authorization === `Bearer ${apiKey}` && req.headers["x-account-token"] === accountToken;
    let page: number | undefined;
    const answer = (status: number) =>
      requests.push({ method: req.method ?? "", path: url.pathname, query, page, status, authorized });

    if (url.pathname !== "/api/hris/v1/employees") {
      answer(404);
      json(res, 404, { detail: "Not found." });
      return;
    }
    if (req.method !== "GET") {
      answer(405);
      json(res, 405, { detail: `Method "${req.method}" not allowed.` });
      return;
    }
    if (!authorized) {
      answer(401);
      json(res, 401, { detail: "Authentication credentials were not provided or are not valid." });
      return;
    }
    const pageSize = url.searchParams.has("page_size") ? Number(url.searchParams.get("page_size")) : 100;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MERGE_MAX_PAGE_SIZE) {
      answer(400);
      json(res, 400, { detail: `page_size: the maximum limit is ${MERGE_MAX_PAGE_SIZE}.` });
      return;
    }
    const expand = new Set((url.searchParams.get("expand") ?? "").split(",").filter((e) => e !== ""));
    const unknown = [...expand].filter((e) => !EXPANDABLE.has(e));
    if (unknown.length > 0) {
      answer(400);
      json(res, 400, { detail: `expand: ${unknown.join(", ")} is not a relation of Employee.` });
      return;
    }
    const cursor = url.searchParams.get("cursor");
    const offset = cursor === null ? 0 : offsetOf(cursor);
    if (offset === undefined) {
      answer(400);
      json(res, 400, { detail: "Invalid cursor." });
      return;
    }
    page = Math.floor(offset / pageSize) + 1;

    const fault = faults.get(page)?.shift();
    if (fault) {
      switch (fault.kind) {
        case "status":
          answer(fault.status);
          json(
            res,
            fault.status,
            { detail: `fault: ${fault.status}` },
            fault.retryAfter === undefined ? {} : { "retry-after": fault.retryAfter },
          );
          return;
        case "redirect":
          answer(302);
          res.writeHead(302, { location: fault.location, "content-length": "0" });
          res.end();
          return;
        case "body":
          answer(200);
          res.writeHead(200, { "content-type": "application/json" });
          res.end(fault.body);
          return;
        case "cut": {
          answer(200);
          const whole = Buffer.from(JSON.stringify({ next: null, previous: null, results: [] }).padEnd(4096, " "));
          res.writeHead(
            200,
            fault.how === "content-length"
              ? { "content-type": "application/json", "content-length": String(whole.length) }
              : { "content-type": "application/json" },
          );
          // Half the body, then the connection closes: no more bytes, and no chunked terminator.
          res.write(whole.subarray(0, whole.length / 2), () => res.socket?.destroy());
          return;
        }
      }
    }

    const { listed, byRemoteId } = listing(offset, url.searchParams.get("include_deleted_data") === "true");
    const slice = listed.slice(offset, offset + pageSize);
    const end = offset + pageSize;
    answer(200);
    const list = {
      next: end < listed.length ? mergeCursor(end) : null,
      previous: offset > 0 ? mergeCursor(Math.max(0, offset - pageSize)) : null,
      results: slice.map((p) => employee(p, expand, byRemoteId)),
    };
    const delayMs = options.pageDelayMs ?? 0;
    if (delayMs > 0) setTimeout(() => json(res, 200, list), delayMs);
    else json(res, 200, list);
  };

  const server = createServer(handle);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}
