/**
 * The one import for every record type of API v1: the records the spec names (spec-records.ts)
 * and those whose fields it does not show, parsed leniently and normalized (change-item.ts,
 * loose-records.ts).
 */

export { type ChangeEmployee, type ChangeItem, changeItemKey, changeItemSchema } from "./change-item.js";
export {
  type BulkAddResult,
  type BulkSkipKind,
  bulkAddResultSchema,
  type Competitor,
  type CreatedWebhookEndpoint,
  classifySkipReason,
  competitorSchema,
  createdWebhookEndpointSchema,
  type WebhookEndpoint,
  webhookEndpointSchema,
} from "./loose-records.js";
export * from "./spec-records.js";
