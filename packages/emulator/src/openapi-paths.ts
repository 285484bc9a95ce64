/** Paths of the OpenAPI description (spec part 4), relative to the server url `/api/v1`. */

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json): Json => ({ "application/json": { schema } });
const resp = (description: string, schema: Json): Json => ({ description, content: json(schema) });
const errRef = (name: string): Json => ({ $ref: `#/components/responses/${name}` });
const param = (name: string): Json => ({ $ref: `#/components/parameters/${name}` });

interface OpSpec {
  id: string;
  summary: string;
  tag: string;
  write?: boolean;
  bills?: boolean;
  parameters?: Json[];
  body?: Json;
  ok: [status: string, description: string, schema: Json];
  extra?: Record<string, Json>;
  notFound?: boolean;
  invalid?: boolean;
}

/** Builds one operation with the common error responses of part 4 attached. */
function op(spec: OpSpec): Json {
  const responses: Json = {
    [spec.ok[0]]: resp(spec.ok[1], spec.ok[2]),
    "401": errRef("Unauthorized"),
    "402": errRef("PaymentRequired"),
    "429": errRef("TooManyRequests"),
  };
  if (spec.invalid !== false && (spec.body !== undefined || (spec.parameters?.length ?? 0) > 0)) {
    responses["400"] = errRef("InvalidBody");
  }
  if (spec.write === true) responses["403"] = errRef("Forbidden");
  if (spec.notFound === true) responses["404"] = errRef("NotFound");
  Object.assign(responses, spec.extra ?? {});
  const operation: Json = {
    operationId: spec.id,
    summary: spec.summary,
    tags: [spec.tag],
    "x-scope": spec.write === true ? "write" : "read",
    "x-affects-billing": spec.bills === true,
    responses,
  };
  if (spec.parameters !== undefined) operation.parameters = spec.parameters;
  if (spec.body !== undefined) operation.requestBody = { required: true, content: json(spec.body) };
  return operation;
}

const pathId = (description: string): Json => ({
  name: "id",
  in: "path",
  required: true,
  description,
  schema: { type: "integer", minimum: 1 },
});
const webhookId: Json = {
  name: "id",
  in: "path",
  required: true,
  schema: { type: "string", pattern: "^whe_" },
};
const query = (name: string, schema: Json, description?: string): Json => ({
  name,
  in: "query",
  required: false,
  schema,
  ...(description === undefined ? {} : { description }),
});
const orgIdQuery = query(
  "organizationId",
  { type: "integer", minimum: 1 },
  "A reachable competitor workspace; omit for the own company.",
);

const mismatch: Json = {
  description: "COMPETITOR_IDENTITY_MISMATCH: the page resolves to a different company than `name`.",
  content: json(ref("IdentityMismatchError")),
};
const conflictExists: Json = {
  description: "EMPLOYEE_EXISTS: the profile is already on the roster (the emulator also names the row).",
  content: json({
    allOf: [ref("Error"), { type: "object", properties: { employeeId: { type: "integer", format: "int32" } } }],
  }),
};
const busy: Json = {
  description: "SEAT_RESERVATION_BUSY: too many concurrent adds for the company.",
  headers: { "Retry-After": { $ref: "#/components/headers/RetryAfter" } },
  content: json(ref("Error")),
};

/** Endpoint properties as PATCH takes them: no defaults, an omitted property stays as it is. */
const webhookPatchProps: Json = {
  url: { type: "string", format: "uri", description: "Public HTTPS on the default port." },
  description: { type: "string" },
  employeeWarnings: { type: "boolean" },
  poachingOpportunities: { type: "boolean" },
  employeeWarningSensitivity: { type: "integer", minimum: 1, maximum: 5 },
  poachingOpportunitySensitivity: { type: "integer", minimum: 1, maximum: 5 },
};
/** The same on creation, with the defaults of spec 4.6. */
const webhookProps: Json = {
  ...webhookPatchProps,
  employeeWarnings: { type: "boolean", default: true },
  poachingOpportunities: { type: "boolean", default: true },
  employeeWarningSensitivity: { type: "integer", minimum: 1, maximum: 5, default: 3 },
  poachingOpportunitySensitivity: { type: "integer", minimum: 1, maximum: 5, default: 3 },
};

/** Every path of part 4. */
export function apiPaths(): Json {
  return {
    "/me": {
      get: op({ id: "getMe", summary: "Key introspection", tag: "Key", ok: ["200", "The key's reach.", ref("Me")] }),
    },
    "/organization": {
      get: op({
        id: "getOrganization",
        summary: "Own company or a competitor workspace",
        tag: "Company",
        parameters: [orgIdQuery],
        notFound: true,
        ok: ["200", "Organization.", ref("Organization")],
      }),
      patch: op({
        id: "updateOrganization",
        summary: "Edit the company or a competitor workspace",
        tag: "Company",
        write: true,
        notFound: true,
        body: {
          type: "object",
          minProperties: 1,
          properties: {
            name: { type: "string" },
            website: { type: ["string", "null"], format: "uri" },
            companyInfo: { type: ["string", "null"] },
            alertRiskThreshold: {
              type: "number",
              minimum: 0,
              maximum: 1,
              description: "Values between 0.5 and 0.75 snap to one of the two.",
            },
            organizationId: { type: "integer", minimum: 1 },
          },
        },
        ok: ["200", "Updated organization.", ref("Organization")],
      }),
    },
    "/billing": {
      get: op({ id: "getBilling", summary: "Billing state", tag: "Company", ok: ["200", "Billing.", ref("Billing")] }),
    },
    "/employees": {
      get: op({
        id: "listEmployees",
        summary: "People, newest first",
        tag: "People",
        notFound: true,
        parameters: [
          orgIdQuery,
          query("q", { type: "string" }, "Searches name, title, location."),
          query("tracked", { type: "boolean" }),
          param("Page"),
          param("PageSize"),
        ],
        ok: ["200", "Page of Employee.", ref("EmployeePage")],
      }),
      post: op({
        id: "addEmployee",
        summary: "Add one person",
        tag: "People",
        write: true,
        bills: true,
        notFound: true,
        body: {
          type: "object",
          required: ["networkUrl"],
          properties: {
            networkUrl: {
              type: "string",
              format: "uri",
              description: "Public profile URL; the opaque-id form is refused.",
            },
            tracked: { type: "boolean", default: true },
            name: { type: "string" },
            organizationId: { type: "integer", minimum: 1 },
          },
        },
        ok: ["201", "Created (or revived), status importing.", ref("Employee")],
        extra: { "409": conflictExists, "503": busy },
      }),
    },
    "/employees/bulk": {
      post: op({
        id: "bulkAddEmployees",
        summary: "Add up to 50 people",
        tag: "People",
        write: true,
        bills: true,
        notFound: true,
        body: {
          type: "object",
          required: ["networkUrls"],
          properties: {
            networkUrls: { type: "array", minItems: 1, maxItems: 50, items: { type: "string" } },
            tracked: { type: "boolean", default: true },
            organizationId: { type: "integer", minimum: 1 },
          },
        },
        ok: ["201", "Every URL was added.", ref("BulkAddResult")],
        extra: { "207": resp("Some URLs were skipped.", ref("BulkAddResult")) },
      }),
    },
    "/employees/{id}": {
      get: op({
        id: "getEmployee",
        summary: "One person",
        tag: "People",
        parameters: [pathId("Employee id.")],
        notFound: true,
        ok: ["200", "Employee.", ref("Employee")],
      }),
      patch: op({
        id: "updateEmployee",
        summary: "Track, untrack, archive or un-archive",
        tag: "People",
        write: true,
        bills: true,
        parameters: [pathId("Employee id.")],
        notFound: true,
        body: {
          type: "object",
          minProperties: 1,
          properties: { tracked: { type: "boolean" }, status: { type: "string", enum: ["active", "archived"] } },
        },
        ok: ["200", "Updated employee.", ref("Employee")],
      }),
      delete: op({
        id: "deleteEmployee",
        summary: "Archive, or erase an archived person with permanent=true",
        tag: "People",
        write: true,
        bills: true,
        parameters: [pathId("Employee id."), query("permanent", { type: "boolean", default: false })],
        notFound: true,
        ok: [
          "200",
          "The archived Employee, or {id, deleted:true} after an erase.",
          { oneOf: [ref("Employee"), ref("DeletedRecord")] },
        ],
      }),
    },
    "/employees/{id}/changes": {
      get: op({
        id: "listEmployeeChanges",
        summary: "Changes of one person, newest first",
        tag: "Risk changes",
        parameters: [pathId("Employee id."), param("Page"), param("PageSize")],
        notFound: true,
        ok: ["200", "Page of changes.", ref("ChangePage")],
      }),
    },
    "/changes": {
      get: op({
        id: "listChanges",
        summary: "Company-wide change feed, newest first",
        tag: "Risk changes",
        notFound: true,
        parameters: [
          orgIdQuery,
          query("minRiskScore", { type: "number", minimum: 0, maximum: 1 }, "Departures are always included."),
          query("since", { type: "string", format: "date-time" }, "Inclusive."),
          query("changeType", ref("ChangeType")),
          param("Page"),
          param("PageSize"),
        ],
        ok: ["200", "Page of changes.", ref("ChangePage")],
      }),
    },
    "/competitors": {
      get: op({
        id: "listCompetitors",
        summary: "Competitor workspaces (plain array)",
        tag: "Competitors",
        ok: ["200", "Competitors.", { type: "array", items: ref("Competitor") }],
      }),
      post: op({
        id: "addCompetitor",
        summary: "Track a competitor company",
        tag: "Competitors",
        write: true,
        bills: true,
        body: {
          type: "object",
          required: ["companyNetworkUrl"],
          properties: {
            companyNetworkUrl: { type: "string", format: "uri" },
            roleFilters: { type: "array", items: { type: "string" } },
            name: { type: "string" },
            acknowledgeIdentityMismatch: { type: "boolean", default: false },
          },
        },
        ok: ["201", "Created workspace, roster importing.", ref("Competitor")],
        extra: {
          "200": {
            description:
              "The company page is tracked already (emulator choice): the existing workspace, unchanged; nothing is created or billed.",
            content: json(ref("Competitor")),
          },
          "409": mismatch,
        },
      }),
    },
    "/competitors/{id}": {
      get: op({
        id: "getCompetitor",
        summary: "One competitor workspace",
        tag: "Competitors",
        parameters: [pathId("Competitor workspace organization id.")],
        notFound: true,
        ok: ["200", "Competitor.", ref("Competitor")],
      }),
      patch: op({
        id: "updateCompetitor",
        summary: "Pause, resume or retarget",
        tag: "Competitors",
        write: true,
        bills: true,
        parameters: [pathId("Competitor workspace organization id.")],
        notFound: true,
        body: {
          type: "object",
          minProperties: 1,
          properties: { paused: { type: "boolean" }, roleFilters: { type: "array", items: { type: "string" } } },
        },
        ok: ["200", "Updated competitor.", ref("Competitor")],
      }),
      delete: op({
        id: "deleteCompetitor",
        summary: "Erase a competitor workspace",
        tag: "Competitors",
        write: true,
        bills: true,
        parameters: [pathId("Competitor workspace organization id.")],
        notFound: true,
        ok: ["200", "{id, deleted:true}.", ref("DeletedRecord")],
      }),
    },
    "/webhooks": {
      get: op({
        id: "listWebhooks",
        summary: "Webhook endpoints with delivery health",
        tag: "Webhooks",
        ok: ["200", "Endpoints (no secrets).", { type: "array", items: ref("WebhookEndpoint") }],
      }),
      post: op({
        id: "addWebhook",
        summary: "Register a webhook endpoint",
        tag: "Webhooks",
        write: true,
        body: { type: "object", required: ["url"], properties: webhookProps },
        ok: ["201", "Endpoint with its signing secret (returned once).", ref("WebhookEndpointCreated")],
      }),
    },
    "/webhooks/{id}": {
      patch: op({
        id: "updateWebhook",
        summary: "Edit, disable or re-enable an endpoint",
        tag: "Webhooks",
        write: true,
        parameters: [webhookId],
        notFound: true,
        body: {
          type: "object",
          minProperties: 1,
          properties: {
            ...webhookPatchProps,
            enabled: { type: "boolean", description: "true clears the failure counter." },
          },
        },
        ok: ["200", "Updated endpoint.", ref("WebhookEndpoint")],
      }),
      delete: op({
        id: "deleteWebhook",
        summary: "Remove an endpoint and its delivery history",
        tag: "Webhooks",
        write: true,
        parameters: [webhookId],
        notFound: true,
        invalid: false,
        ok: ["200", "{id, deleted:true}.", ref("DeletedRecord")],
      }),
    },
  };
}
