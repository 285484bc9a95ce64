/** Public surface of the API v1 client. */
export { type AddEmployeeResult, RetentionClient, type RetentionClientOptions } from "./client.js";
export { resolvedCompanyName } from "./loose-records.js";
export { RateLimiter, type RateLimiterOptions, type RequestPriority } from "./rate-limiter.js";
export type * from "./request-types.js";
export { isRetrySafe, type RetryDecision, type RetryInput, shouldRetry } from "./retry-policy.js";
export * from "./schemas.js";
