/**
 * The OpenAPI 3.1 description served at /openapi.json and /openapi.yaml (spec parts 4 and 9).
 * Plain data so the emulator serves it without I/O and tests can check it against the routes.
 */
import { apiPaths } from "./openapi-paths.js";
import { componentSchemas } from "./openapi-schemas.js";

type Json = Record<string, unknown>;

const errorContent: Json = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };
const retryAfterHeader: Json = { "Retry-After": { $ref: "#/components/headers/RetryAfter" } };

function errorResponse(description: string, withRetryAfter = false): Json {
  return { description, content: errorContent, ...(withRetryAfter ? { headers: retryAfterHeader } : {}) };
}

function webhookEvent(type: string, description: string, payload = "EventPayload"): Json {
  return {
    post: {
      operationId: `event_${type.replace(".", "_")}`,
      summary: description,
      parameters: [
        { name: "X-Service-Event", in: "header", required: true, schema: { type: "string", const: type } },
        {
          name: "X-Service-Delivery",
          in: "header",
          required: true,
          description: "Unique id of this delivery attempt; usable to dedupe.",
          schema: { type: "string" },
        },
        {
          name: "X-Service-Signature",
          in: "header",
          required: true,
          description: "`t=<unix seconds>,v1=<hex HMAC-SHA256 of '<t>.<raw body>' keyed with the endpoint secret>`.",
          schema: { type: "string", pattern: "^t=\\d+,v1=[0-9a-f]+$" },
        },
      ],
      requestBody: {
        required: true,
        content: { "application/json": { schema: { $ref: `#/components/schemas/${payload}` } } },
      },
      responses: {
        "2XX": { description: "Any 2xx is success; anything else (or a time-out of 10 s) is retried, 6 attempts." },
      },
    },
  };
}

/** The complete OpenAPI 3.1 document of API v1 as the emulator implements it. */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "Retention Early-Warning Service API",
      version: "1.0.0",
      description:
        "Employee retention early-warning signals: roster, risk changes, competitor workspaces, billing and signed webhooks. Served by the retention-sync emulator.",
    },
    servers: [{ url: "/api/v1" }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "Key" },
      { name: "Company" },
      { name: "People" },
      { name: "Risk changes" },
      { name: "Competitors" },
      { name: "Webhooks" },
    ],
    paths: apiPaths(),
    webhooks: {
      "employee.warning": webhookEvent(
        "employee.warning",
        "A person on the own roster shows resignation-risk signals.",
      ),
      "poaching.opportunity": webhookEvent(
        "poaching.opportunity",
        "A person at a tracked competitor shows the same signals.",
      ),
      ping: webhookEvent(
        "ping",
        "Test event of the dashboard send-test button, signed like every delivery (payload not shown; the emulator sends it through POST /_emulator/webhooks/{id}/ping).",
        "PingPayload",
      ),
    },
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "Authorization: Bearer <API_KEY>" },
      },
      headers: {
        RetryAfter: {
          description: "Integer seconds, at least 1.",
          schema: { type: "integer", minimum: 1 },
        },
      },
      parameters: {
        Page: { name: "page", in: "query", required: false, schema: { type: "integer", minimum: 1, default: 1 } },
        PageSize: {
          name: "pageSize",
          in: "query",
          required: false,
          schema: { type: "integer", minimum: 1, maximum: 100, default: 25 },
        },
      },
      responses: {
        InvalidBody: errorResponse("INVALID_BODY: a parameter is missing or of the wrong type; the message names it."),
        Unauthorized: errorResponse("Missing, malformed, unknown or revoked key (no code)."),
        PaymentRequired: errorResponse("SUBSCRIPTION_INACTIVE, TRIAL_LIMIT_REACHED or SEAT_CHARGE_FAILED."),
        Forbidden: errorResponse("INSUFFICIENT_SCOPE: read-only key on a write operation."),
        NotFound: errorResponse("Resource missing or outside the key's reach (no code)."),
        TooManyRequests: errorResponse(
          "Per-minute limit (no code), SEAT_QUOTA_EXCEEDED or ROW_QUOTA_EXCEEDED. Retry-After in integer seconds >= 1.",
          true,
        ),
      },
      schemas: componentSchemas(),
    },
  };
}
