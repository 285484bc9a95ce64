import { CHANGE_TYPES } from "./change-types.js";
import { SERVICE_ERROR_CODES } from "./service-error-codes.js";

/**
 * Component schemas of the OpenAPI description served by the emulator (spec part 2).
 * Where the spec says "not shown", the shapes are the ones the emulator serves (see packages/emulator/README.md).
 */

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const nullable = (type: string, extra: Json = {}): Json => ({ type: [type, "null"], ...extra });
const dateTime: Json = { type: "string", format: "date-time" };
const nullableDateTime: Json = nullable("string", { format: "date-time" });
const int: Json = { type: "integer", format: "int32" };
const score: Json = { type: "number", minimum: 0, maximum: 1 };

const employeeSummary: Json = {
  type: "object",
  required: ["id", "name"],
  properties: {
    id: int,
    name: { type: "string" },
    title: nullable("string"),
    location: nullable("string"),
    department: nullable("string"),
    networkUrl: { type: "string", format: "uri" },
    profileImageUrl: nullable("string", { format: "uri" }),
    url: { type: "string", format: "uri", description: "Dashboard link." },
  },
};

const webhookHealth: Json = {
  type: "object",
  properties: {
    consecutiveFailures: {
      type: "integer",
      minimum: 0,
      description: "Failed attempts since the last successful one (or re-enabling).",
    },
    consecutiveFailedEvents: {
      type: "integer",
      minimum: 0,
      description: "Events in a row whose every attempt failed; 5 over at least 24 h disable the endpoint.",
    },
    failingSince: nullable("string", {
      format: "date-time",
      description: "First failed attempt of the current streak; null while deliveries succeed.",
    }),
    disabledReason: nullable("string", { description: "Why the endpoint was disabled (automatic or manual)." }),
    lastDeliveryAt: nullableDateTime,
    lastStatus: nullable("string", { enum: ["succeeded", "failed", null] }),
    recentDeliveries: {
      type: "array",
      maxItems: 20,
      description: "Last 20 deliveries, newest first.",
      items: {
        type: "object",
        properties: {
          deliveryId: { type: "string", description: "The X-Service-Delivery value of the attempt." },
          eventId: { type: "string" },
          eventType: { type: "string" },
          attempt: { type: "integer", minimum: 1, maximum: 6 },
          at: dateTime,
          ok: { type: "boolean" },
          httpStatus: nullable("integer"),
          error: nullable("string"),
          durationMs: { type: "integer", minimum: 0 },
        },
      },
    },
  },
};

const webhookEndpointProperties: Json = {
  id: { type: "string", pattern: "^whe_" },
  url: { type: "string", format: "uri" },
  description: nullable("string"),
  enabled: { type: "boolean" },
  employeeWarnings: { type: "boolean" },
  poachingOpportunities: { type: "boolean" },
  employeeWarningSensitivity: { type: "integer", minimum: 1, maximum: 5 },
  poachingOpportunitySensitivity: { type: "integer", minimum: 1, maximum: 5 },
  createdAt: dateTime,
  health: webhookHealth,
};

const eventPayload: Json = {
  type: "object",
  required: ["id", "type", "createdAt", "sensitivityLevel", "organization", "data"],
  properties: {
    id: { type: "string", pattern: "^evt_", description: "evt_<change_id>_<n>; stable across retries." },
    type: { type: "string", enum: ["employee.warning", "poaching.opportunity"] },
    createdAt: dateTime,
    sensitivityLevel: { type: "integer", minimum: 1, maximum: 5 },
    organization: ref("OrganizationRef"),
    data: {
      type: "object",
      required: ["competitor", "employee", "change"],
      properties: {
        competitor: { oneOf: [ref("OrganizationRef"), { type: "null" }] },
        employee: employeeSummary,
        change: {
          type: "object",
          required: ["changeType", "riskLevel", "summary"],
          properties: {
            id: int,
            changeType: ref("ChangeType"),
            changedFields: { type: "string" },
            riskScore: nullable("number", { minimum: 0, maximum: 1 }),
            riskLevel: ref("RiskLevel"),
            summary: { type: "string" },
            factors: { type: "array", items: { type: "string" } },
            detectedAt: dateTime,
          },
        },
      },
    },
  },
};

/** Every component schema of the document. */
export function componentSchemas(): Json {
  return {
    Error: {
      type: "object",
      required: ["error"],
      properties: {
        error: { type: "string", description: "Human-readable sentence." },
        code: { type: "string", enum: [...SERVICE_ERROR_CODES] },
      },
    },
    IdentityMismatchError: {
      allOf: [
        ref("Error"),
        {
          type: "object",
          properties: {
            resolvedCompany: { type: "object", required: ["name"], properties: { name: { type: "string" } } },
          },
        },
      ],
    },
    OrganizationRef: {
      type: "object",
      required: ["id", "name"],
      properties: { id: int, name: { type: "string" } },
    },
    Me: {
      type: "object",
      required: ["organization", "competitors", "scopes"],
      properties: {
        organization: ref("OrganizationRef"),
        competitors: { type: "array", items: ref("OrganizationRef") },
        scopes: { type: "array", items: { type: "string", enum: ["read", "write"] } },
      },
    },
    Organization: {
      type: "object",
      required: ["id", "name", "kind", "createdAt"],
      properties: {
        id: int,
        name: { type: "string" },
        website: nullable("string", { format: "uri" }),
        networkId: nullable("string"),
        kind: { type: "string", enum: ["primary", "competitor"] },
        alertRiskThreshold: score,
        createdAt: dateTime,
        employeeCount: { type: "integer" },
        trackedEmployeeCount: { type: "integer" },
      },
    },
    RiskLevel: { type: "string", enum: ["high", "watch", "low"] },
    ChangeType: { type: "string", enum: [...CHANGE_TYPES] },
    LatestChange: {
      type: ["object", "null"],
      required: ["riskScore", "riskLevel", "changeType", "detectedAt"],
      properties: {
        riskScore: nullable("number", { minimum: 0, maximum: 1 }),
        riskLevel: ref("RiskLevel"),
        changeType: ref("ChangeType"),
        detectedAt: dateTime,
      },
    },
    Employee: {
      type: "object",
      required: ["id", "organizationId", "name", "networkUrl", "tracked", "status"],
      properties: {
        id: int,
        organizationId: int,
        name: { type: "string" },
        title: nullable("string"),
        location: nullable("string"),
        department: nullable("string"),
        networkUrl: { type: "string", format: "uri" },
        profileImageUrl: nullable("string", { format: "uri" }),
        tracked: { type: "boolean" },
        status: { type: "string", enum: ["active", "importing", "archived"] },
        trackingStartedAt: {
          ...dateTime,
          description: "Start of the latest tracking window; absent for someone never tracked.",
        },
        createdAt: dateTime,
        latestChange: ref("LatestChange"),
      },
    },
    ChangeItem: {
      type: "object",
      required: ["id", "organizationId", "employeeId", "changeType", "riskScore", "riskLevel", "detectedAt"],
      properties: {
        id: int,
        organizationId: int,
        employeeId: int,
        employee: employeeSummary,
        changeType: ref("ChangeType"),
        changedFields: { type: "string" },
        riskScore: nullable("number", { minimum: 0, maximum: 1, description: "null for employee_departed" }),
        riskLevel: ref("RiskLevel"),
        summary: { type: "string" },
        factors: { type: "array", items: { type: "string" } },
        detectedAt: dateTime,
      },
    },
    EmployeePage: pageOf("Employee"),
    ChangePage: pageOf("ChangeItem"),
    Billing: billingSchema(),
    Competitor: {
      type: "object",
      required: ["id", "name", "roleFilters", "paused", "trackedEmployeeCount"],
      properties: {
        id: { ...int, description: "Organization id of the competitor workspace." },
        name: { type: "string" },
        companyNetworkUrl: { type: "string", format: "uri" },
        roleFilters: { type: "array", items: { type: "string" } },
        paused: { type: "boolean" },
        trackedEmployeeCount: { type: "integer" },
        employeeCount: { type: "integer" },
        importing: { type: "boolean", description: "True while the roster import runs." },
        createdAt: dateTime,
      },
    },
    BulkAddResult: {
      type: "object",
      required: ["added", "skipped", "seatAllowance"],
      properties: {
        added: { type: "array", items: ref("Employee") },
        skipped: {
          type: "array",
          items: {
            type: "object",
            required: ["reason", "message"],
            properties: {
              networkUrl: { type: "string" },
              reason: {
                type: "string",
                enum: ["invalid_url", "duplicate", "seat_limit", "trial_limit", "row_quota", "charge_failed"],
              },
              message: { type: "string" },
            },
          },
        },
        seatAllowance: {
          type: "object",
          properties: { perDay: { type: "integer" }, usedLast24h: { type: "integer" }, left: { type: "integer" } },
        },
      },
    },
    DeletedRecord: {
      type: "object",
      required: ["deleted"],
      properties: { id: { type: ["integer", "string"] }, deleted: { type: "boolean", const: true } },
    },
    WebhookEndpoint: {
      type: "object",
      required: ["id", "url", "enabled", "employeeWarnings", "poachingOpportunities"],
      properties: webhookEndpointProperties,
    },
    WebhookEndpointCreated: {
      type: "object",
      required: ["id", "url", "enabled", "secret"],
      properties: { ...webhookEndpointProperties, secret: { type: "string", description: "Returned only once." } },
    },
    EventPayload: eventPayload,
    PingPayload: {
      type: "object",
      required: ["id", "type", "createdAt", "organization"],
      properties: {
        id: { type: "string", pattern: "^evt_" },
        type: { type: "string", const: "ping" },
        createdAt: dateTime,
        organization: ref("OrganizationRef"),
        data: { type: "object" },
      },
    },
  };
}

function pageOf(item: string): Json {
  return {
    type: "object",
    required: ["items", "total", "page", "pageSize", "hasMore"],
    properties: {
      items: { type: "array", items: ref(item) },
      total: { type: "integer", minimum: 0 },
      page: { type: "integer", minimum: 1 },
      pageSize: { type: "integer", minimum: 1, maximum: 100 },
      hasMore: { type: "boolean" },
    },
  };
}

function billingSchema(): Json {
  const num: Json = { type: "number" };
  const integer: Json = { type: "integer" };
  return {
    type: "object",
    required: ["organizationId", "seats", "plan", "estimate", "trial", "seatSettlement"],
    properties: {
      organizationId: int,
      billingOrganizationId: int,
      seats: {
        type: "object",
        properties: { billable: integer, inThisOrganization: integer, organizationIds: { type: "array", items: int } },
      },
      plan: {
        type: "object",
        properties: {
          status: { type: "string", examples: ["active", "trialing", "past_due", "canceled"] },
          interval: { type: "string", enum: ["month", "year"] },
          perSeatUsd: num,
          quantity: integer,
          currentPeriodEnd: nullableDateTime,
          cancelAtPeriodEnd: { type: "boolean" },
        },
      },
      estimate: {
        type: "object",
        properties: {
          grossUsd: num,
          discountUsd: num,
          netUsd: num,
          interval: { type: "string", enum: ["month", "year"] },
        },
      },
      trial: {
        type: "object",
        properties: {
          onFreeTrial: { type: "boolean" },
          endsAt: nullableDateTime,
          seatLimit: integer,
          seatsLeft: nullable("integer"),
        },
      },
      seatSettlement: {
        type: "object",
        properties: {
          threshold: integer,
          maxUnbilledUsd: num,
          unbilledSeats: integer,
          estimatedUnbilledUsd: num,
          seatsUntilNextCharge: integer,
          trigger: { type: "string", enum: ["seats", "amount"] },
          chargeFailed: { type: "boolean" },
          chargeFailedAt: nullableDateTime,
        },
      },
      apiSeatAllowance: {
        type: "object",
        properties: { perDay: integer, usedLast24h: integer, left: integer },
      },
    },
  };
}
