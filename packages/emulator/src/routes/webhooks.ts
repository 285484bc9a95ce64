import { z } from "zod";
import { iso } from "../clock.js";
import type { Emulator } from "../emulator.js";
import { invalid, notFound } from "../http-error.js";
import type { KeyRecord, WebhookEndpointRecord } from "../model.js";
import { ok, type Route } from "../router.js";
import { objectBody, parseWith } from "../validate.js";
import { endpointView, newSecret, webhookUrlProblem } from "../webhooks.js";

const level = z
  .number({ error: "expected an integer 1..5" })
  .int("expected an integer 1..5")
  .min(1, "must be >= 1")
  .max(5, "must be <= 5");
const bool = z.boolean({ error: "expected a boolean" });
const addBody = z.object({
  url: z.string({ error: "required, a public HTTPS URL" }),
  description: z.string({ error: "expected a string" }).nullable().optional(),
  employeeWarnings: bool.optional(),
  poachingOpportunities: bool.optional(),
  employeeWarningSensitivity: level.optional(),
  poachingOpportunitySensitivity: level.optional(),
});
const patchBody = z.object({
  enabled: bool.optional(),
  url: z.string({ error: "expected a string" }).optional(),
  description: z.string({ error: "expected a string" }).nullable().optional(),
  employeeWarnings: bool.optional(),
  poachingOpportunities: bool.optional(),
  employeeWarningSensitivity: level.optional(),
  poachingOpportunitySensitivity: level.optional(),
});

function reachableEndpoint(em: Emulator, key: KeyRecord, id: string | undefined): WebhookEndpointRecord {
  const ep = id === undefined ? undefined : em.state.webhooks.get(id);
  if (!ep || ep.companyId !== key.organizationId) throw notFound("Webhook endpoint");
  return ep;
}

function checkUrl(em: Emulator, url: string): void {
  const problem = webhookUrlProblem(url, em.config.allowLoopbackWebhooks);
  if (problem) throw invalid(`Invalid parameter "url": ${problem.replace(/^url: /, "")}`);
}

export const webhookRoutes: Route[] = [
  {
    method: "GET",
    pattern: "/webhooks",
    handler: ({ em, key }) =>
      ok([...em.state.webhooks.values()].filter((e) => e.companyId === key.organizationId).map(endpointView)),
  },
  {
    method: "POST",
    pattern: "/webhooks",
    handler: ({ em, key, body, now }) => {
      const input = parseWith(addBody, objectBody(body), "body");
      checkUrl(em, input.url);
      const ep: WebhookEndpointRecord = {
        id: `whe_${String(em.state.nextWebhookId++).padStart(6, "0")}`,
        companyId: key.organizationId,
        url: input.url,
        description: input.description ?? null,
        enabled: true,
        employeeWarnings: input.employeeWarnings ?? true,
        poachingOpportunities: input.poachingOpportunities ?? true,
        employeeWarningSensitivity: input.employeeWarningSensitivity ?? 3,
        poachingOpportunitySensitivity: input.poachingOpportunitySensitivity ?? 3,
        secret: newSecret(),
        createdAt: now,
        consecutiveFailures: 0,
        failingSince: null,
        failedEventIds: [],
        disabledReason: null,
        lastDeliveryAt: null,
        lastStatus: null,
        recentDeliveries: [],
      };
      em.state.webhooks.set(ep.id, ep);
      return ok({ ...endpointView(ep), secret: ep.secret }, 201);
    },
  },
  {
    method: "PATCH",
    pattern: "/webhooks/:id",
    handler: ({ em, key, params, body }) => {
      const ep = reachableEndpoint(em, key, params.id);
      const patch = parseWith(patchBody, objectBody(body), "body");
      if (Object.values(patch).every((v) => v === undefined)) {
        throw invalid(
          'Invalid parameter "body": send at least one of enabled, url, employeeWarnings, poachingOpportunities, employeeWarningSensitivity, poachingOpportunitySensitivity.',
        );
      }
      if (patch.url !== undefined) {
        checkUrl(em, patch.url);
        ep.url = patch.url;
      }
      if (patch.description !== undefined) ep.description = patch.description;
      if (patch.employeeWarnings !== undefined) ep.employeeWarnings = patch.employeeWarnings;
      if (patch.poachingOpportunities !== undefined) ep.poachingOpportunities = patch.poachingOpportunities;
      if (patch.employeeWarningSensitivity !== undefined)
        ep.employeeWarningSensitivity = patch.employeeWarningSensitivity;
      if (patch.poachingOpportunitySensitivity !== undefined)
        ep.poachingOpportunitySensitivity = patch.poachingOpportunitySensitivity;
      if (patch.enabled === true) {
        // Spec 3.3: re-enabling clears the failure counter.
        ep.enabled = true;
        ep.consecutiveFailures = 0;
        ep.failingSince = null;
        ep.failedEventIds = [];
        ep.disabledReason = null;
      } else if (patch.enabled === false) {
        ep.enabled = false;
        ep.disabledReason = `disabled through the API at ${iso(em.clock.now())}`;
        em.dispatcher.dropEndpoint(ep.id);
      }
      return ok(endpointView(ep));
    },
  },
  {
    method: "DELETE",
    pattern: "/webhooks/:id",
    handler: ({ em, key, params }) => {
      const ep = reachableEndpoint(em, key, params.id);
      em.state.webhooks.delete(ep.id);
      em.dispatcher.dropEndpoint(ep.id);
      return ok({ id: ep.id, deleted: true });
    },
  },
];
