import { z } from "zod";
import { ConflictError } from "../errors.js";
import { silentLogger } from "../logger.js";
import { sleep as sleepReal } from "../timers.js";
import { ApiCaller, type CallMeta } from "./api-caller.js";
import type { AddEmployeeResult, RetentionClientOptions } from "./client-options.js";
import { paginate } from "./paginate.js";
import { RateLimiter } from "./rate-limiter.js";
import type {
  AddEmployeeInput,
  BulkAddInput,
  ChangeQuery,
  CompetitorInput,
  CompetitorPatch,
  EmployeePatch,
  EmployeeQuery,
  OrganizationPatch,
  PageQuery,
  WebhookInput,
  WebhookPatch,
} from "./request-types.js";
import {
  type Billing,
  type BulkAddResult,
  billingSchema,
  bulkAddResultSchema,
  type ChangeItem,
  type Competitor,
  type CreatedWebhookEndpoint,
  changeItemSchema,
  competitorSchema,
  createdWebhookEndpointSchema,
  type Employee,
  employeeSchema,
  type Me,
  meSchema,
  type Organization,
  organizationSchema,
  type Page,
  pageSchema,
  type WebhookEndpoint,
  webhookEndpointSchema,
} from "./schemas.js";
import { type QueryValue, Transport } from "./transport.js";
import * as v from "./validate-request.js";

export type { AddEmployeeResult, RetentionClientOptions } from "./client-options.js";
export type * from "./request-types.js";

const ITERATOR_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 25;
const anyBody = z.unknown();

/** Typed client for every operation of API v1 (spec part 4). Errors are those of src/errors.ts. */
export class RetentionClient {
  private readonly transport: Transport;
  private readonly caller: ApiCaller;
  private readonly signal: AbortSignal | undefined;

  constructor(options: RetentionClientOptions) {
    const now = options.now ?? Date.now;
    v.requireNonEmptyString("baseUrl", options.baseUrl);
    this.transport = new Transport({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      timeoutMs: options.timeoutMs ?? 10_000,
      now,
    });
    this.signal = options.signal;
    this.caller = new ApiCaller({
      transport: this.transport,
      limiter: options.rateLimiter ?? new RateLimiter({ requestsPerMinute: options.requestsPerMinute ?? 120 }),
      logger: options.logger ?? silentLogger(),
      maxRetries: options.maxRetries ?? 5,
      retryBaseDelayMs: options.retryBaseDelayMs ?? 500,
      priority: options.priority ?? "poll",
      sleep: options.sleep ?? sleepReal,
      random: options.random ?? Math.random,
      now,
      events: options.events,
    });
  }

  /** Closes keep-alive connections; call when done. */
  async close(): Promise<void> {
    return this.transport.close();
  }

  private async get<T extends z.ZodType>(path: string, schema: T, query?: Record<string, QueryValue>) {
    return (await this.caller.call({ method: "GET", path, signal: this.signal, ...(query ? { query } : {}) }, schema))
      .data;
  }

  private async write<T extends z.ZodType>(
    method: "POST" | "PATCH" | "DELETE",
    path: string,
    schema: T,
    body?: unknown,
    query?: Record<string, QueryValue>,
    meta?: CallMeta,
  ) {
    const req = {
      method,
      path,
      signal: this.signal,
      ...(body !== undefined ? { body } : {}),
      ...(query ? { query } : {}),
    };
    return (await this.caller.call(req, schema, meta)).data;
  }

  // 4.1 Key
  async me(): Promise<Me> {
    return this.get("/me", meSchema);
  }

  // 4.2 Company
  async getOrganization(organizationId?: number): Promise<Organization> {
    if (organizationId !== undefined) v.requireId("organizationId", organizationId);
    return this.get("/organization", organizationSchema, { organizationId });
  }

  async updateOrganization(patch: OrganizationPatch): Promise<Organization> {
    const { organizationId, ...changes } = patch;
    if (organizationId !== undefined) v.requireId("organizationId", organizationId);
    const body = v.requireNonEmptyPatch("organization patch", changes);
    if (body.name !== undefined) v.requireNonEmptyString("name", body.name);
    if (body.alertRiskThreshold !== undefined)
      v.requireNumberInRange("alertRiskThreshold", body.alertRiskThreshold, 0, 1);
    return this.write("PATCH", "/organization", organizationSchema, { ...body, organizationId });
  }

  async getBilling(): Promise<Billing> {
    return this.get("/billing", billingSchema);
  }

  // 4.3 People
  async listEmployees(query: EmployeeQuery & PageQuery = {}): Promise<Page<Employee>> {
    v.validatePageQuery(query);
    if (query.organizationId !== undefined) v.requireId("organizationId", query.organizationId);
    const requested = { page: query.page ?? 1, pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE };
    return this.get("/employees", pageSchema(employeeSchema, requested), {
      organizationId: query.organizationId,
      q: query.q,
      tracked: query.tracked,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  /** Every employee matching the query, walking all pages (pageSize 100 unless given). */
  async *iterateEmployees(
    query: EmployeeQuery & { pageSize?: number | undefined } = {},
  ): AsyncGenerator<Employee, void, undefined> {
    const pageSize = query.pageSize ?? ITERATOR_PAGE_SIZE;
    v.validatePageQuery({ pageSize });
    yield* paginate((page) => this.listEmployees({ ...query, page, pageSize }), {
      method: "GET",
      path: "/employees",
      identity: (e) => e.id,
    });
  }

  /** Adds one person (affects billing). A 409 EMPLOYEE_EXISTS is `already-exists`, not an error. */
  async addEmployee(input: AddEmployeeInput): Promise<AddEmployeeResult> {
    v.requireNonEmptyString("networkUrl", input.networkUrl);
    if (input.organizationId !== undefined) v.requireId("organizationId", input.organizationId);
    if (input.tracked !== undefined) v.requireBoolean("tracked", input.tracked);
    const meta: CallMeta = { attempts: 0 };
    try {
      const employee = await this.write("POST", "/employees", employeeSchema, input, undefined, meta);
      return { outcome: "created", employee, afterRetry: meta.attempts > 1 };
    } catch (error) {
      if (error instanceof ConflictError && error.code === "EMPLOYEE_EXISTS") {
        return { outcome: "already-exists", afterRetry: meta.attempts > 1 };
      }
      throw error;
    }
  }

  /** Adds 1 to 50 people in one call; skipped URLs come back in `skipped` with a `kind`. Never retried after a 5xx. */
  async bulkAddEmployees(input: BulkAddInput): Promise<BulkAddResult> {
    v.requireStringList("networkUrls", input.networkUrls, 1, 50);
    if (input.organizationId !== undefined) v.requireId("organizationId", input.organizationId);
    if (input.tracked !== undefined) v.requireBoolean("tracked", input.tracked);
    return this.write("POST", "/employees/bulk", bulkAddResultSchema, input);
  }

  async getEmployee(id: number): Promise<Employee> {
    v.requireId("id", id);
    return this.get(`/employees/${id}`, employeeSchema);
  }

  async updateEmployee(id: number, patch: EmployeePatch): Promise<Employee> {
    v.requireId("id", id);
    const body = v.requireNonEmptyPatch("employee patch", patch);
    if (body.tracked !== undefined) v.requireBoolean("tracked", body.tracked);
    if (body.status !== undefined) v.requireOneOf("status", body.status, ["active", "archived"]);
    return this.write("PATCH", `/employees/${id}`, employeeSchema, body);
  }

  /** Archives a person, or erases an archived one with `permanent: true`. The body shape is not shown (2.13). */
  async deleteEmployee(id: number, options: { permanent?: boolean | undefined } = {}): Promise<unknown> {
    v.requireId("id", id);
    const query = options.permanent ? { permanent: true } : undefined;
    return this.write("DELETE", `/employees/${id}`, anyBody, undefined, query);
  }

  async listEmployeeChanges(id: number, page: PageQuery = {}): Promise<Page<ChangeItem>> {
    v.requireId("id", id);
    v.validatePageQuery(page);
    const requested = { page: page.page ?? 1, pageSize: page.pageSize ?? DEFAULT_PAGE_SIZE };
    return this.get(`/employees/${id}/changes`, pageSchema(changeItemSchema, requested), {
      page: page.page,
      pageSize: page.pageSize,
    });
  }

  // 4.4 Risk changes
  async listChanges(query: ChangeQuery & PageQuery = {}): Promise<Page<ChangeItem>> {
    v.validatePageQuery(query);
    if (query.organizationId !== undefined) v.requireId("organizationId", query.organizationId);
    if (query.minRiskScore !== undefined) v.requireNumberInRange("minRiskScore", query.minRiskScore, 0, 1);
    const since = query.since !== undefined ? v.requireInstant("since", query.since) : undefined;
    if (query.changeType !== undefined) v.requireChangeType("changeType", query.changeType);
    const requested = { page: query.page ?? 1, pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE };
    return this.get("/changes", pageSchema(changeItemSchema, requested), {
      organizationId: query.organizationId,
      minRiskScore: query.minRiskScore,
      since,
      changeType: query.changeType,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  /** Every change matching the query, all pages, each change once (by `key`). */
  async *iterateChanges(
    query: ChangeQuery & { pageSize?: number | undefined } = {},
  ): AsyncGenerator<ChangeItem, void, undefined> {
    const pageSize = query.pageSize ?? ITERATOR_PAGE_SIZE;
    v.validatePageQuery({ pageSize });
    yield* paginate((page) => this.listChanges({ ...query, page, pageSize }), {
      method: "GET",
      path: "/changes",
      identity: (c) => c.key,
    });
  }

  // 4.5 Competitors
  async listCompetitors(): Promise<Competitor[]> {
    return this.get("/competitors", z.array(competitorSchema));
  }

  async getCompetitor(id: number): Promise<Competitor> {
    v.requireId("id", id);
    return this.get(`/competitors/${id}`, competitorSchema);
  }

  /** Creates a competitor workspace. A 409 COMPETITOR_IDENTITY_MISMATCH names the real company: see `resolvedCompanyName`. */
  async addCompetitor(input: CompetitorInput): Promise<Competitor> {
    v.requireNonEmptyString("companyNetworkUrl", input.companyNetworkUrl);
    if (input.roleFilters !== undefined) v.requireStringList("roleFilters", input.roleFilters, 0, 100);
    return this.write("POST", "/competitors", competitorSchema, input);
  }

  async updateCompetitor(id: number, patch: CompetitorPatch): Promise<Competitor> {
    v.requireId("id", id);
    const body = v.requireNonEmptyPatch("competitor patch", patch);
    if (body.paused !== undefined) v.requireBoolean("paused", body.paused);
    if (body.roleFilters !== undefined) v.requireStringList("roleFilters", body.roleFilters, 0, 100);
    return this.write("PATCH", `/competitors/${id}`, competitorSchema, body);
  }

  async deleteCompetitor(id: number): Promise<unknown> {
    v.requireId("id", id);
    return this.write("DELETE", `/competitors/${id}`, anyBody);
  }

  // 4.6 Webhooks
  async listWebhooks(): Promise<WebhookEndpoint[]> {
    return this.get("/webhooks", z.array(webhookEndpointSchema));
  }

  /** Registers an endpoint; the response carries the signing secret, returned only this once. */
  async addWebhook(input: WebhookInput): Promise<CreatedWebhookEndpoint> {
    v.requireNonEmptyString("url", input.url);
    validateSensitivities(input);
    return this.write("POST", "/webhooks", createdWebhookEndpointSchema, input);
  }

  async updateWebhook(id: string, patch: WebhookPatch): Promise<WebhookEndpoint> {
    v.requireNonEmptyString("id", id);
    const body = v.requireNonEmptyPatch("webhook patch", patch);
    if (body.url !== undefined) v.requireNonEmptyString("url", body.url);
    validateSensitivities(body);
    return this.write("PATCH", `/webhooks/${encodeURIComponent(id)}`, webhookEndpointSchema, body);
  }

  async deleteWebhook(id: string): Promise<unknown> {
    v.requireNonEmptyString("id", id);
    return this.write("DELETE", `/webhooks/${encodeURIComponent(id)}`, anyBody);
  }
}

function validateSensitivities(input: {
  employeeWarningSensitivity?: number | undefined;
  poachingOpportunitySensitivity?: number | undefined;
}): void {
  if (input.employeeWarningSensitivity !== undefined) {
    v.requireSensitivity("employeeWarningSensitivity", input.employeeWarningSensitivity);
  }
  if (input.poachingOpportunitySensitivity !== undefined) {
    v.requireSensitivity("poachingOpportunitySensitivity", input.poachingOpportunitySensitivity);
  }
}
