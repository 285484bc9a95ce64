import { describe, expect, it } from "vitest";
import * as errors from "../src/errors.js";

/**
 * Every class `src/errors.ts` exports is part of the one hierarchy: it must know its exit code, and
 * `exitCodeOf` must map it. A sample constructor call per class: a new class without one fails here,
 * which is the point (it must be added with its exit code in mind).
 */

const init = { status: 500, message: "m", method: "GET", path: "/x" };
const SAMPLES: Record<string, () => unknown> = {
  UsageError: () => new errors.UsageError("m"),
  ConfigError: () => new errors.ConfigError("config", [{ path: "a", message: "m" }]),
  LocalValidationError: () => new errors.LocalValidationError("p", "m"),
  ExplainedError: () => new errors.ExplainedError("m", { cause: new errors.UsageError("m") }),
  // Abstract: any of its subclasses stands for it.
  ApiCallError: () => new errors.ApiNetworkError("GET", "/x", "reset"),
  ApiError: () => new errors.ApiError(init),
  InvalidRequestError: () => new errors.InvalidRequestError(init),
  AuthenticationError: () => new errors.AuthenticationError(init),
  PaymentRequiredError: () => new errors.PaymentRequiredError(init),
  PermissionError: () => new errors.PermissionError(init),
  NotFoundError: () => new errors.NotFoundError(init),
  ServiceUrlError: () => new errors.ServiceUrlError(init),
  ConflictError: () => new errors.ConflictError(init),
  RateLimitError: () => new errors.RateLimitError(init),
  QuotaExceededError: () => new errors.QuotaExceededError(init),
  SeatReservationBusyError: () => new errors.SeatReservationBusyError(init),
  ServerError: () => new errors.ServerError(init),
  ApiNetworkError: () => new errors.ApiNetworkError("GET", "/x", "reset"),
  ApiTimeoutError: () => new errors.ApiTimeoutError("GET", "/x", 10),
  ApiResponseError: () => new errors.ApiResponseError("GET", "/x", 200, "m"),
  RosterFileError: () => new errors.RosterFileError("f.csv", "cannot be read"),
  RosterPullError: () => new errors.RosterPullError("https", "m"),
  RosterSourceAuthError: () => new errors.RosterSourceAuthError("https", "m"),
  ReadOnlyKeyError: () => new errors.ReadOnlyKeyError(["read"]),
  PlanNeedsApprovalError: () =>
    new errors.PlanNeedsApprovalError(
      "p.json",
      { archives: 9, managed: 10, percent: 90 },
      { maxArchiveCount: 5, maxArchivePercent: 20 },
      false,
    ),
  StalePlanError: () => new errors.StalePlanError("p.json", { steps: ["- a"], inputs: [] }),
  PlanFileError: () => new errors.PlanFileError("p.json", "not JSON"),
  StoreError: () => new errors.StoreError("m"),
  InstanceLockedError: () => new errors.InstanceLockedError("m"),
  FencedOutError: () => new errors.FencedOutError(1, 2),
  WebhookSignatureError: () => new errors.WebhookSignatureError("stale", "m"),
  SlackActionError: () => new errors.SlackActionError("m"),
  LocalPressError: () => new errors.LocalPressError("m"),
};

type Constructor = abstract new (...args: never[]) => unknown;
const exportedClasses = (Object.entries(errors) as [string, unknown][]).filter(
  (entry): entry is [string, Constructor] =>
    typeof entry[1] === "function" && /^class\b/.test(Function.prototype.toString.call(entry[1])),
);

describe("the error hierarchy", () => {
  it("finds the classes", () => {
    expect(exportedClasses.length).toBeGreaterThan(20);
  });

  for (const [name, cls] of exportedClasses) {
    if (name === "RetentionSyncError") continue;
    it(`${name} has an exit code in {1, 2, 3} that exitCodeOf maps`, () => {
      const sample = SAMPLES[name];
      expect(sample, `add a sample of ${name} to test/errors.test.ts`).toBeDefined();
      const error = sample?.();
      expect(error).toBeInstanceOf(cls);
      expect(error).toBeInstanceOf(errors.RetentionSyncError);
      const exitCode = (error as errors.RetentionSyncError).exitCode;
      expect([1, 2, 3]).toContain(exitCode);
      expect(errors.exitCodeOf(error)).toBe(exitCode);
    });
  }

  it("exitCodeOf maps anything else to 1", () => {
    expect(errors.exitCodeOf(new Error("plain"))).toBe(errors.EXIT_RUNTIME);
  });
});
