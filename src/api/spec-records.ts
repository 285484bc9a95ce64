import { z } from "zod";

/**
 * zod schemas of the records of spec part 2 whose fields the spec names. Lenient as spec 1 and
 * 9.2 demand: unknown fields never fail a parse (loose objects keep them), `?` fields accept null,
 * and optional fields that arrive as null are read as absent. Import through `schemas.ts`.
 */

/** Optional field that is not nullable in the spec: a null from the server is read as absent. */
function optional<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === null ? undefined : value), schema.optional());
}

/** Optional and nullable (`?` in the spec): absent stays absent, null stays null. */
function nullish<T extends z.ZodType>(schema: T) {
  return schema.nullable().optional();
}

export const RISK_LEVELS = ["high", "watch", "low"] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** Risk level of spec 2.4 from a score; a departure reads as high. */
export function riskLevelOfScore(score: number | null | undefined, changeType?: string): RiskLevel {
  if (changeType === "employee_departed") return "high";
  if (typeof score !== "number") return "low";
  if (score >= 0.75) return "high";
  if (score >= 0.5) return "watch";
  return "low";
}

/** A risk level as sent, case-insensitive; undefined when it is not one of the three. */
export function readRiskLevel(value: unknown): RiskLevel | undefined {
  if (typeof value !== "string") return undefined;
  const lower = value.trim().toLowerCase();
  return (RISK_LEVELS as readonly string[]).includes(lower) ? (lower as RiskLevel) : undefined;
}

/** RiskLevel enum, tolerant of case. */
export const riskLevelSchema = z.string().transform((value, ctx) => {
  const level = readRiskLevel(value);
  if (level) return level;
  const shown = value.length > 40 ? `${value.slice(0, 37)}...` : value;
  ctx.addIssue({ code: "custom", message: `expected one of ${RISK_LEVELS.join(", ")}, got ${JSON.stringify(shown)}` });
  return z.NEVER;
});

// 2.2 OrganizationRef and Me
export const organizationRefSchema = z.looseObject({ id: z.number().int(), name: z.string() });
export type OrganizationRef = z.infer<typeof organizationRefSchema>;

export const meSchema = z.looseObject({
  organization: organizationRefSchema,
  competitors: z.array(organizationRefSchema),
  scopes: z.array(z.string()),
});
export type Me = z.infer<typeof meSchema>;

// 2.3 Organization
export const organizationSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  website: nullish(z.string()),
  networkId: nullish(z.string()),
  kind: z.string(),
  alertRiskThreshold: optional(z.number()),
  createdAt: z.string(),
  employeeCount: optional(z.number().int()),
  trackedEmployeeCount: optional(z.number().int()),
});
export type Organization = z.infer<typeof organizationSchema>;

// 2.6 LatestChange: object or null. A missing or unknown level is derived from the score.
export const latestChangeSchema = z
  .looseObject({
    riskScore: nullish(z.number()),
    riskLevel: optional(z.string()),
    changeType: z.string(),
    detectedAt: z.string(),
  })
  .transform((raw) => ({
    ...raw,
    riskScore: raw.riskScore ?? null,
    riskLevel: readRiskLevel(raw.riskLevel) ?? riskLevelOfScore(raw.riskScore, raw.changeType),
  }));
export type LatestChange = z.infer<typeof latestChangeSchema>;

export const EMPLOYEE_STATUSES = ["active", "importing", "archived"] as const;
/** `status` of spec 2.7; the spec does not state every value (3.1), so any string is accepted. */
export type EmployeeStatus = (typeof EMPLOYEE_STATUSES)[number] | (string & {});

// 2.7 Employee
export const employeeSchema = z.looseObject({
  id: z.number().int(),
  organizationId: z.number().int(),
  name: z.string(),
  title: nullish(z.string()),
  location: nullish(z.string()),
  department: nullish(z.string()),
  networkUrl: z.string(),
  profileImageUrl: nullish(z.string()),
  tracked: z.boolean(),
  status: z.string() as z.ZodType<EmployeeStatus>,
  trackingStartedAt: optional(z.string()),
  createdAt: optional(z.string()),
  latestChange: latestChangeSchema.nullable().optional(),
});
export type Employee = z.infer<typeof employeeSchema>;

// 2.9 Page envelope. `items` is what a page is for; the counters are derived when absent.
export interface Page<T> {
  items: T[];
  total?: number;
  page: number;
  pageSize: number;
  hasMore: boolean;
}

/** Row counts beyond int32 cannot be real: ids are int32 (spec 2). */
const MAX_TOTAL = 2_147_483_647;

/** One envelope schema per item schema: building a zod object costs about 0.5 ms, parsing an empty page 0.01 ms. */
const envelopes = new WeakMap<z.ZodType, z.ZodType>();

/** The page envelope (spec 2.9) over an item schema, built once per item schema and reused for every page. */
export function pageEnvelope<T extends z.ZodType>(item: T) {
  const build = () =>
    z.looseObject({
      items: z.array(item),
      total: optional(z.number().int().min(0).max(MAX_TOTAL)),
      page: optional(z.number().int().min(1)),
      pageSize: optional(z.number().int().min(1)),
      hasMore: optional(z.boolean()),
    });
  let envelope = envelopes.get(item) as ReturnType<typeof build> | undefined;
  if (!envelope) {
    envelope = build();
    envelopes.set(item, envelope);
  }
  return envelope;
}

/**
 * Page envelope schema over an item schema; `requested` fills page/pageSize when the server omits
 * them. A page that contradicts the request (another page number, more rows than asked for) is
 * refused: walking it would repeat or balloon without end. Only the small check that knows
 * `requested` is made per page; the envelope is the cached `pageEnvelope(item)`.
 */
export function pageSchema<T extends z.ZodType>(item: T, requested: { page: number; pageSize: number }) {
  return pageEnvelope(item).transform((raw, ctx): Page<z.output<T>> => {
    let contradicts = false;
    if (raw.page !== undefined && raw.page !== requested.page) {
      contradicts = true;
      ctx.addIssue({
        code: "custom",
        path: ["page"],
        message: `asked for page ${requested.page}, the server answered page ${raw.page} (is it ignoring the page parameter?)`,
      });
    }
    if (raw.items.length > requested.pageSize) {
      contradicts = true;
      ctx.addIssue({
        code: "custom",
        path: ["items"],
        message: `${raw.items.length} rows on one page, more than the pageSize ${requested.pageSize} asked for`,
      });
    }
    if (contradicts) return z.NEVER;
    const page = raw.page ?? requested.page;
    const pageSize = raw.pageSize ?? requested.pageSize;
    const hasMore = raw.hasMore ?? (raw.total !== undefined ? page * pageSize < raw.total : false);
    const items = raw.items as z.output<T>[];
    return raw.total === undefined
      ? { items, page, pageSize, hasMore }
      : { items, total: raw.total, page, pageSize, hasMore };
  });
}

// 2.10 Billing: top-level blocks required, their inner fields optional (the spec marks none Req).
const int = z.number().int();
export const billingSchema = z.looseObject({
  organizationId: int,
  billingOrganizationId: optional(int),
  seats: z.looseObject({
    billable: optional(int),
    inThisOrganization: optional(int),
    organizationIds: optional(z.array(int)),
  }),
  plan: z.looseObject({
    status: optional(z.string()),
    interval: optional(z.string()),
    perSeatUsd: optional(z.number()),
    quantity: optional(int),
    currentPeriodEnd: nullish(z.string()),
    cancelAtPeriodEnd: optional(z.boolean()),
  }),
  estimate: z.looseObject({
    grossUsd: optional(z.number()),
    discountUsd: optional(z.number()),
    netUsd: optional(z.number()),
    interval: optional(z.string()),
  }),
  trial: z.looseObject({
    onFreeTrial: optional(z.boolean()),
    endsAt: nullish(z.string()),
    seatLimit: optional(int),
    seatsLeft: nullish(int),
  }),
  seatSettlement: z.looseObject({
    threshold: optional(int),
    maxUnbilledUsd: optional(z.number()),
    unbilledSeats: optional(int),
    estimatedUnbilledUsd: optional(z.number()),
    seatsUntilNextCharge: optional(int),
    trigger: optional(z.string()),
    chargeFailed: optional(z.boolean()),
    chargeFailedAt: nullish(z.string()),
  }),
  apiSeatAllowance: optional(
    z.looseObject({
      perDay: optional(int),
      usedLast24h: optional(int),
      left: optional(int),
    }),
  ),
});
export type Billing = z.infer<typeof billingSchema>;
