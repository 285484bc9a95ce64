/**
 * A local fake of a report served over HTTPS, for the `https` roster source: a Workday
 * Report-as-a-Service (RaaS) custom report, and any other report URL behind a Bearer token.
 *
 * Workday RaaS, as its public descriptions have it:
 * - `GET /ccx/service/customreport2/{tenant}/{reportOwner}/{reportName}?format=json|csv`; the
 *   report's prompts are further query parameters (Workato, "Workday RaaS": the JSON URL copied
 *   from Actions > Web Service > View URLs; the api-evangelist RaaS OpenAPI: path, `format` enum).
 * - HTTP Basic with the integration system user's name and password (singer-io/tap-workday-raas
 *   `WorkdayBasicAuthClient`; the RaaS OpenAPI's `basicAuth`), or an OAuth bearer token
 *   (the RaaS OpenAPI's `bearerAuth`; tap-workday-raas `WorkdayOAuthClient`). A missing or wrong
 *   credential is a 401, a user without access to the report a 403, an unknown report a 404
 *   (the RaaS OpenAPI's responses), each with a small JSON error body.
 * - JSON: one object whose `Report_Entry` array holds one object per row, keyed by the columns'
 *   XML aliases (`Employee_ID`, ...), `null` for an empty cell (the RaaS OpenAPI's ReportResponse;
 *   the fixtures in test/fixtures/hris/workday/). A report with no rows: `{"Report_Entry": []}`.
 * - CSV: a header row of the column headings ("Employee ID"), one line per row.
 * - The whole report in one answer: RaaS has no pages.
 * Without `format`, RaaS answers XML; this fake does too (a minimal `wd:Report_Data`).
 *
 * Any other report URL (`/exports/{name}.json|csv|ndjson` here) takes `Authorization: Bearer <token>`.
 *
 * Both answer conditional GETs as HTTP does (RFC 9110 13.1.1, 13.1.3, 15.4.5): a strong `ETag`
 * and a `Last-Modified`; `If-None-Match` naming the current ETag, or (without If-None-Match)
 * `If-Modified-Since` not before Last-Modified, gets a 304 with no body. Either validator can be
 * left out of the answers (`validators`), as many report servers do.
 *
 * Faults, queued, one per request (`fail`): any status with an optional Retry-After, a body cut
 * short (Content-Length declared and the socket closed early, or a chunked body ended without its
 * last chunk), a redirect to any Location, a server that stalls before or inside its answer.
 *
 * Sources:
 * - https://docs.workato.com/connectors/workday/workday_raas
 * - https://docs.workato.com/connectors/workday/get_report
 * - https://github.com/api-evangelist/workday-integrations/blob/main/openapi/workday-integrations-raas-openapi.yml
 * - https://github.com/singer-io/tap-workday-raas (tap_workday_raas/client.py; tests/unittests/test_zero_row_handling.py)
 * - https://rdrr.io/github/blakiseskream/workdayr/f/Readme.md (format=csv, Basic auth)
 * - https://www.rfc-editor.org/rfc/rfc9110 (conditional requests, 304)
 */
import { createHash } from "node:crypto";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { registerSecret } from "../known-secrets.js";

export type ReportRow = Record<string, string | null>;

export type HttpsFault =
  | { readonly kind: "status"; readonly status: number; readonly retryAfter?: string; readonly body?: string }
  /** `content-length`: declares the whole length, sends half and closes; `chunked`: ends without the last chunk. */
  | { readonly kind: "cut"; readonly how: "content-length" | "chunked" }
  | { readonly kind: "redirect"; readonly location: string; readonly status?: 301 | 302 | 303 | 307 | 308 }
  /** `headers`: never answers; `body`: sends the headers and half the body, then nothing more (the socket stays open). */
  | { readonly kind: "stall"; readonly phase: "headers" | "body" };

export interface HttpsFakeOptions {
  readonly host?: string;
  readonly tenant?: string;
  /** The report's owner in the URL (often the integration system user itself). */
  readonly owner?: string;
  readonly report?: string;
  /** The integration system user (HTTP Basic). */
  readonly user?: string;
  readonly password?: string;
  /** A bearer token accepted by the generic report and by RaaS. */
  readonly token?: string;
  /** The rows served; the Workday fixture's by default. */
  readonly rows?: readonly ReportRow[];
  /** Users that exist but may not see the report (a 403). */
  readonly usersWithoutAccess?: Readonly<Record<string, string>>;
}

export interface FakeRequest {
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** `basic <user>`, `bearer` or `none`: never the secret itself. */
  readonly auth: string;
  readonly ifNoneMatch?: string;
  readonly ifModifiedSince?: string;
  /** The status answered; 0 for a request left unanswered (a stall). */
  readonly status: number;
}

export interface HttpsFake {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly token: string;
  /** The report's RaaS URL as Workday's View URLs shows it (`xml`: without `format`, Workday's default). */
  raasUrl(format: "json" | "csv" | "xml", extra?: Record<string, string>): string;
  /** A generic report URL (Bearer token). */
  exportUrl(format: "json" | "csv" | "ndjson"): string;
  /** Replaces the rows; the report's Last-Modified moves to `at` (default: now, to the second). */
  setRows(rows: readonly ReportRow[], at?: Date): void;
  /** Which validators the answers carry (both by default). */
  validators(which: { readonly etag: boolean; readonly lastModified: boolean }): void;
  /** Queues faults: each answers one request, in order, before the report is served again. */
  fail(...faults: HttpsFault[]): void;
  /** Runs `action` once, when the next request arrives and before it is answered. */
  onNextRequest(action: () => Promise<void> | void): void;
  /** The same fault for the next `times` requests. */
  failTimes(fault: HttpsFault, times: number): void;
  readonly requests: readonly FakeRequest[];
  close(): Promise<void>;
}

const FIXTURE = fileURLToPath(new URL("../../fixtures/hris/workday/raas-workers.json", import.meta.url));

/** The Workday fixture's rows (`Report_Entry`). */
export function workdayFixtureRows(): ReportRow[] {
  return (JSON.parse(readFileSync(FIXTURE, "utf8")) as { Report_Entry: ReportRow[] }).Report_Entry;
}

/** `count` active regular employees shaped like the fixture's rows, LinkedIn `https://www.linkedin.com/in/<prefix>-<n>`. */
export function workdayRows(count: number, prefix = "worker", start = 0): ReportRow[] {
  return Array.from({ length: count }, (_, i) => {
    const n = start + i;
    return {
      Employee_ID: String(30_000 + n),
      Worker: `${prefix} ${n}`,
      Name: `${prefix} ${n}`,
      Active_Status: "1",
      Worker_Type: "Employee",
      Employee_Type: "Regular",
      Time_Type: "Full time",
      Business_Title: "Engineer",
      Supervisory_Organization: "Engineering (Ana Lima)",
      Location: "Lisbon Office",
      Primary_Work_Email: `${prefix}.${n}@example.com`,
      Hire_Date: "2022-01-10-08:00",
      Termination_Date: null,
      LinkedIn_Profile_URL: `https://www.linkedin.com/in/${prefix}-${n}`,
    };
  });
}

/** A column heading for a CSV: the XML alias with its underscores as spaces ("Employee ID"). */
function heading(alias: string): string {
  return alias.replace(/_/g, " ");
}

function csvCell(value: string | null): string {
  const text = value ?? "";
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function toCsv(rows: readonly ReportRow[]): string {
  const columns: string[] = [];
  for (const row of rows) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  const lines = [columns.map(heading).map(csvCell).join(",")];
  for (const row of rows) lines.push(columns.map((c) => csvCell(row[c] ?? null)).join(","));
  return `${lines.join("\r\n")}\r\n`;
}

function xmlEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function toXml(rows: readonly ReportRow[], report: string): string {
  const entries = rows.map(
    (row) =>
      `<wd:Report_Entry>${Object.entries(row)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => `<wd:${k}>${xmlEscape(v ?? "")}</wd:${k}>`)
        .join("")}</wd:Report_Entry>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?><wd:Report_Data xmlns:wd="urn:com.workday.report/${report}">${entries.join("")}</wd:Report_Data>`;
}

/** Seconds only: an HTTP-date has no milliseconds. */
function wholeSecond(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 1000) * 1000);
}

export async function startHttpsFake(options: HttpsFakeOptions = {}): Promise<HttpsFake> {
  const host = options.host ?? "127.0.0.1";
  const tenant = options.tenant ?? "acme";
  const owner = options.owner ?? "ISU_Retention";
  const report = options.report ?? "Retention_Roster";
  const user = options.user ?? "ISU_Retention";
  const password = options.password ?? "wd-isu-password-3f9a1c7e";
  const token = options.token ?? "report-token-8d2e6b4a90c1";
  const noAccess = options.usersWithoutAccess ?? {};
  registerSecret(password, "fake Workday ISU password");
  registerSecret(token, "fake report bearer token");
  for (const secret of Object.values(noAccess)) registerSecret(secret, "fake Workday user password");

  let rows: readonly ReportRow[] = options.rows ?? workdayFixtureRows();
  let modifiedAt = wholeSecond(new Date());
  let sendEtag = true;
  let sendLastModified = true;
  const faults: HttpsFault[] = [];
  const requests: FakeRequest[] = [];
  const sockets = new Set<Socket>();
  let nextRequest: (() => Promise<void> | void) | undefined;

  const raasPath = `/ccx/service/customreport2/${tenant}/${owner}/${report}`;

  /** Who is asking: the user of a Basic credential that matches, `bearer` for the token, else undefined. */
  function caller(header: string | undefined): { who: string; access: boolean } | undefined {
    if (header === undefined) return undefined;
    const [scheme, value = ""] = header.split(" ", 2);
    if (scheme?.toLowerCase() === "bearer") return value === token ? { who: "bearer", access: true } : undefined;
    if (scheme?.toLowerCase() !== "basic") return undefined;
    const decoded = Buffer.from(value, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) return undefined;
    const name = decoded.slice(0, colon);
    const secret = decoded.slice(colon + 1);
    if (name === user && secret === password) return { who: name, access: true };
    if (Object.hasOwn(noAccess, name) && noAccess[name] === secret) return { who: name, access: false };
    return undefined;
  }

  function describeAuth(header: string | undefined): string {
    if (header === undefined) return "none";
    const [scheme, value = ""] = header.split(" ", 2);
    if (scheme?.toLowerCase() === "basic") {
      const decoded = Buffer.from(value, "base64").toString("utf8");
      return `basic ${decoded.slice(0, Math.max(0, decoded.indexOf(":")))}`;
    }
    return scheme?.toLowerCase() ?? "none";
  }

  function body(format: string | undefined): { text: string; type: string } {
    if (format === "json")
      return { text: JSON.stringify({ Report_Entry: rows }), type: "application/json;charset=UTF-8" };
    if (format === "csv") return { text: toCsv(rows), type: "text/csv;charset=UTF-8" };
    if (format === "ndjson") {
      return { text: rows.map((row) => `${JSON.stringify(row)}\n`).join(""), type: "application/x-ndjson" };
    }
    return { text: toXml(rows, report), type: "text/xml;charset=UTF-8" };
  }

  function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { "content-type": "application/json;charset=UTF-8", ...headers });
    res.end(JSON.stringify(value));
  }

  function serve(req: IncomingMessage, res: ServerResponse, record: (status: number) => void): void {
    const url = new URL(req.url ?? "/", `http://${host}`);
    const query = Object.fromEntries(url.searchParams);
    const fault = faults.shift();
    if (fault?.kind === "status") {
      record(fault.status);
      const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { "retry-after": fault.retryAfter };
      json(res, fault.status, { error: fault.body ?? `status ${fault.status}` }, headers);
      return;
    }
    if (fault?.kind === "redirect") {
      record(fault.status ?? 302);
      res.writeHead(fault.status ?? 302, { location: fault.location });
      res.end();
      return;
    }
    if (fault?.kind === "stall" && fault.phase === "headers") {
      record(0);
      return;
    }
    if (req.method !== "GET") {
      record(405);
      json(res, 405, { error: "method not allowed" });
      return;
    }
    let format: string | undefined;
    const exportMatch = /^\/exports\/([A-Za-z0-9_-]+)\.(json|csv|ndjson)$/.exec(url.pathname);
    if (url.pathname.startsWith("/ccx/service/customreport2/")) {
      // Credentials first, as a server does: an unknown user learns nothing about the reports.
      const who = caller(req.headers.authorization);
      if (!who) {
        record(401);
        json(res, 401, { error: "invalid username or password" }, { "www-authenticate": `Basic realm="${tenant}"` });
        return;
      }
      if (url.pathname !== raasPath) {
        record(404);
        json(res, 404, { error: "report not found or not enabled as a web service" });
        return;
      }
      if (!who.access) {
        record(403);
        json(res, 403, { error: "the user has no access to the report" });
        return;
      }
      format = query.format;
    } else if (exportMatch) {
      const header = req.headers.authorization ?? "";
      if (header !== `Bearer ${token}`) {
        record(401);
        json(res, 401, { error: "invalid token" }, { "www-authenticate": 'Bearer realm="exports"' });
        return;
      }
      format = exportMatch[2];
    } else {
      record(404);
      json(res, 404, { error: "not found" });
      return;
    }

    const { text, type } = body(format);
    const etag = `"${createHash("sha256").update(text).digest("hex").slice(0, 20)}"`;
    const lastModified = modifiedAt.toUTCString();
    const validators: Record<string, string> = {
      ...(sendEtag ? { etag } : {}),
      ...(sendLastModified ? { "last-modified": lastModified } : {}),
    };
    const ifNoneMatch = req.headers["if-none-match"];
    const ifModifiedSince = req.headers["if-modified-since"];
    let notModified = false;
    if (ifNoneMatch !== undefined) {
      notModified = sendEtag && ifNoneMatch.split(",").some((t) => t.trim() === etag || t.trim() === "*");
    } else if (ifModifiedSince !== undefined && sendLastModified) {
      const since = Date.parse(ifModifiedSince);
      notModified = Number.isFinite(since) && modifiedAt.getTime() <= since;
    }
    if (notModified) {
      record(304);
      res.writeHead(304, validators);
      res.end();
      return;
    }
    const bytes = Buffer.from(text, "utf8");
    if (fault?.kind === "cut" && fault.how === "content-length") {
      record(200);
      res.writeHead(200, { "content-type": type, "content-length": String(bytes.length), ...validators });
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
      // Flushed, then the connection ends: the client has half of what was announced.
      setTimeout(() => req.socket.destroy(), 20);
      return;
    }
    if (fault?.kind === "stall" && fault.phase === "body") {
      record(200);
      res.writeHead(200, { "content-type": type, "content-length": String(bytes.length), ...validators });
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
      return;
    }
    if (fault?.kind === "cut" && fault.how === "chunked") {
      record(200);
      res.writeHead(200, { "content-type": type, "transfer-encoding": "chunked", ...validators });
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
      setTimeout(() => req.socket.destroy(), 20);
      return;
    }
    record(200);
    res.writeHead(200, { "content-type": type, "content-length": String(bytes.length), ...validators });
    res.end(bytes);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", `http://${host}`);
    const record = (status: number) => {
      const ifNoneMatch = req.headers["if-none-match"];
      const ifModifiedSince = req.headers["if-modified-since"];
      requests.push({
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        auth: describeAuth(req.headers.authorization),
        ...(ifNoneMatch === undefined ? {} : { ifNoneMatch }),
        ...(ifModifiedSince === undefined ? {} : { ifModifiedSince }),
        status,
      });
    };
    const action = nextRequest;
    nextRequest = undefined;
    void Promise.resolve(action?.()).then(() => serve(req, res, record));
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.listen(0, host);
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host}:${port}`;

  return {
    origin,
    port,
    user,
    password,
    token,
    raasUrl(format, extra = {}) {
      const url = new URL(`${origin}${raasPath}`);
      for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v);
      if (format !== "xml") url.searchParams.set("format", format);
      return url.toString();
    },
    exportUrl(format) {
      return `${origin}/exports/roster.${format}`;
    },
    setRows(next, at = new Date()) {
      rows = next;
      modifiedAt = wholeSecond(at);
    },
    validators(which) {
      sendEtag = which.etag;
      sendLastModified = which.lastModified;
    },
    fail(...next) {
      faults.push(...next);
    },
    onNextRequest(action) {
      nextRequest = action;
    },
    failTimes(fault, times) {
      for (let i = 0; i < times; i += 1) faults.push(fault);
    },
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, "close").catch(() => undefined);
    },
  };
}
