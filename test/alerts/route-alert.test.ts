import { afterEach, describe, expect, it, vi } from "vitest";
import { minRiskScoreForLens } from "../../src/alerts/min-risk-score.js";
import {
  CATCH_ALL,
  entryMatcher,
  normaliseText,
  POACHING_CATCH_ALL,
  routeAlert,
  routerFor,
  routeThreshold,
} from "../../src/alerts/route-alert.js";
import type { AlertRoute } from "../../src/config/schema.js";
import { ACME, buildAlert, GLOBEX, RETENTION } from "./support/build-alert.js";

const route = (r: Partial<AlertRoute> & { channel: string }): AlertRoute => ({ lens: "both", ...r });

describe("routeAlert", () => {
  it("sends every retention alert at Watch or above to slack.channel when no routes are configured", () => {
    const config = { routes: [], defaultChannel: "#alerts" };
    expect(routeAlert(buildAlert({ riskScore: 0.5, riskLevel: "watch" }), config)).toEqual([
      { channel: "#alerts", routes: [CATCH_ALL] },
    ]);
    expect(routeAlert(buildAlert({ riskScore: 0.49, riskLevel: "low" }), config)).toEqual([]);
  });

  it("never sends the poaching lens to slack.channel: only a route or slack.poachingChannel takes it", () => {
    const poaching = buildAlert({ lens: ACME, riskScore: 0.9 });
    expect(routerFor({ routes: [], defaultChannel: "#alerts" }).route(poaching)).toEqual({
      matches: [],
      caughtAll: false,
    });
    const withPoachingChannel = { routes: [], defaultChannel: "#alerts", poachingChannel: "#talent" };
    expect(routerFor(withPoachingChannel).route(poaching)).toEqual({
      matches: [{ channel: "#talent", routes: [POACHING_CATCH_ALL] }],
      caughtAll: true,
    });
    // The poaching channel takes no retention alert, and nothing below Watch.
    expect(routeAlert(buildAlert({ riskScore: 0.9 }), withPoachingChannel).map((m) => m.channel)).toEqual(["#alerts"]);
    expect(routeAlert(buildAlert({ lens: ACME, riskScore: 0.3, riskLevel: "low" }), withPoachingChannel)).toEqual([]);
    const routed = { routes: [route({ lens: "poaching", channel: "#acme" })], defaultChannel: "#alerts" };
    expect(routeAlert(poaching, routed).map((m) => m.channel)).toEqual(["#acme"]);
  });

  it("routes nothing when neither routes nor a default channel exist", () => {
    expect(routeAlert(buildAlert(), { routes: [] })).toEqual([]);
  });

  it("filters by lens, score, level, change type, department, location and competitor", () => {
    const routes: AlertRoute[] = [
      route({ name: "hr", lens: "retention", minRiskScore: 0.6, channel: "#hr" }),
      route({ name: "eng", lens: "retention", minRiskLevel: "high", departments: ["engineering"], channel: "#eng" }),
      route({ name: "acme", lens: "poaching", competitorIds: [7], minRiskScore: 0.3, channel: "#acme" }),
      route({ name: "otw", lens: "both", changeTypes: ["open_to_work"], minRiskScore: 0.2, channel: "#otw" }),
      route({ name: "berlin", lens: "both", locations: ["Berlin"], minRiskScore: 0.9, channel: "#berlin" }),
    ];
    const channels = (a: ReturnType<typeof buildAlert>) => routeAlert(a, { routes }).map((m) => m.channel);
    expect(channels(buildAlert({ riskScore: 0.8, riskLevel: "high" }))).toEqual(["#hr", "#eng", "#otw"]);
    expect(channels(buildAlert({ riskScore: 0.65, riskLevel: "watch", changeType: "title_change" }))).toEqual(["#hr"]);
    expect(channels(buildAlert({ riskScore: 0.8, riskLevel: "high", person: { department: "Sales" } }))).toEqual([
      "#hr",
      "#otw",
    ]);
    expect(channels(buildAlert({ riskScore: 0.95, person: { department: undefined } }))).toEqual([
      "#hr",
      "#otw",
      "#berlin",
    ]);
    expect(channels(buildAlert({ lens: ACME, riskScore: 0.35, riskLevel: "low", changeType: "new_skills" }))).toEqual([
      "#acme",
    ]);
    expect(channels(buildAlert({ lens: GLOBEX, riskScore: 0.35, riskLevel: "low", changeType: "new_skills" }))).toEqual(
      [],
    );
  });

  it("lets departures skip only the score threshold: every other filter of a route applies", () => {
    const routes: AlertRoute[] = [
      route({ lens: "retention", minRiskScore: 0.95, channel: "#strict" }),
      route({ lens: "retention", departments: ["Finance"], changeTypes: ["open_to_work"], channel: "#finance-otw" }),
      route({ lens: "retention", departments: ["Finance"], channel: "#finance" }),
      route({ lens: "poaching", channel: "#poach" }),
      route({ lens: "poaching", competitorIds: [9], channel: "#globex" }),
    ];
    const departure = { changeType: "employee_departed", riskScore: null, riskLevel: "high" as const };
    const channels = (alert: ReturnType<typeof buildAlert>) => routeAlert(alert, { routes }).map((m) => m.channel);
    // The case to rule out: a support person's departure is neither finance nor open_to_work.
    expect(channels(buildAlert({ ...departure, person: { department: "Support" } }))).toEqual(["#strict"]);
    expect(channels(buildAlert({ ...departure, person: { department: "Finance" } }))).toEqual(["#strict", "#finance"]);
    expect(channels(buildAlert({ ...departure, lens: ACME }))).toEqual(["#poach"]);
  });

  it("sends what no route takes to slack.channel, like Alertmanager's root route", () => {
    const routes: AlertRoute[] = [route({ lens: "retention", departments: ["Finance"], channel: "#finance" })];
    const withCatchAll = { routes, defaultChannel: "#hr-alerts" };
    const support = buildAlert({ riskScore: 0.8, person: { department: "Support" } });
    expect(routerFor(withCatchAll).route(support)).toEqual({
      matches: [{ channel: "#hr-alerts", routes: [CATCH_ALL] }],
      caughtAll: true,
    });
    const finance = buildAlert({ riskScore: 0.8, person: { department: "Finance" } });
    expect(routerFor(withCatchAll).route(finance)).toEqual({
      matches: [{ channel: "#finance", routes: ["routes[0]"] }],
      caughtAll: false,
    });
    // Below Watch, the catch-all does not take it either; without slack.channel nothing does.
    expect(routeAlert(buildAlert({ riskScore: 0.3, riskLevel: "low" }), withCatchAll)).toEqual([]);
    expect(routeAlert(support, { routes })).toEqual([]);
  });

  it("stops after a matching route with continue: false, and only then (several routes match by default)", () => {
    const routes: AlertRoute[] = [
      route({
        name: "departures",
        lens: "retention",
        changeTypes: ["employee_departed"],
        channel: "#departures",
        continue: false,
      }),
      route({ name: "hr", lens: "retention", channel: "#hr-alerts" }),
      route({ name: "talent", lens: "poaching", channel: "#talent" }),
      route({ name: "audit", lens: "both", minRiskScore: 0.9, channel: "#audit" }),
    ];
    const config = { routes, defaultChannel: "#hr-alerts" };
    const departure = buildAlert({ changeType: "employee_departed", riskScore: null, riskLevel: "high" });
    expect(routeAlert(departure, config)).toEqual([{ channel: "#departures", routes: ["departures"] }]);
    const otw = buildAlert({ riskScore: 0.95 });
    expect(routeAlert(otw, config).map((m) => m.channel)).toEqual(["#hr-alerts", "#audit"]);
    expect(routeAlert(buildAlert({ lens: ACME, riskScore: 0.8 }), config).map((m) => m.channel)).toEqual(["#talent"]);
    // A route with continue: false that does not match does not stop anything.
    const stopper = [route({ lens: "poaching", channel: "#x", continue: false }), route({ channel: "#y" })];
    expect(routeAlert(buildAlert(), { routes: stopper }).map((m) => m.channel)).toEqual(["#y"]);
  });

  it("matches departments and locations case-insensitively, by leading part or wildcard", () => {
    const routes: AlertRoute[] = [
      route({ name: "berlin", locations: ["Berlin*"], channel: "#berlin" }),
      route({ name: "munich", locations: ["münchen"], channel: "#munich" }),
      route({ name: "eng", departments: ["ENGINEERING"], channel: "#eng" }),
      route({ name: "any-sales", departments: ["*sales*"], channel: "#sales" }),
    ];
    const channels = (person: { department?: string; location?: string }) =>
      routeAlert(buildAlert({ person }), { routes }).map((m) => m.channel);
    expect(channels({ location: "Berlin, Germany", department: "Engineering - Platform" })).toEqual([
      "#berlin",
      "#eng",
    ]);
    expect(channels({ location: "berlin", department: "engineering" })).toEqual(["#berlin", "#eng"]);
    expect(channels({ location: "MÜNCHEN (remote)", department: "Inside Sales EMEA" })).toEqual(["#munich", "#sales"]);
    expect(channels({ location: "Munich", department: "Engineers Guild" })).toEqual([]);
  });
});

describe("entry matchers", () => {
  it("take a plain entry as the whole value or its leading part up to a non-word character", () => {
    const berlin = entryMatcher("Berlin");
    expect(berlin(normaliseText("Berlin, Germany"))).toBe(true);
    expect(berlin(normaliseText("Berlin"))).toBe(true);
    expect(berlin(normaliseText("Berlingen"))).toBe(false);
    expect(berlin(normaliseText("East Berlin"))).toBe(false);
    expect(entryMatcher("*Germany")(normaliseText("Berlin,  Germany"))).toBe(true);
    expect(entryMatcher("Ber*ny")(normaliseText("Berlin, Germany"))).toBe(true);
    expect(entryMatcher("a.b")(normaliseText("axb"))).toBe(false);
  });
});

describe("routing on the hot path", () => {
  afterEach(() => vi.restoreAllMocks());

  it("compiles a configuration once and normalises only the alert's two values per alert, never localeCompare", () => {
    const routes: AlertRoute[] = Array.from({ length: 40 }, (_, i) =>
      route({ departments: [`Dept ${i}`, `Other ${i}*`], locations: ["Berlin*", "Paris"], channel: `#c${i}` }),
    );
    const config = { routes };
    expect(routerFor(config)).toBe(routerFor(config));
    routeAlert(buildAlert(), config);
    const normalize = vi.spyOn(String.prototype, "normalize");
    const localeCompare = vi.spyOn(String.prototype, "localeCompare");
    for (let i = 0; i < 100; i += 1)
      routeAlert(buildAlert({ person: { department: "Dept 39", location: "Berlin" } }), config);
    expect(localeCompare).not.toHaveBeenCalled();
    expect(normalize.mock.calls.length).toBe(200);
  });

  it("sends one message per channel when several routes to it match", () => {
    const routes = [route({ name: "a", channel: "#x" }), route({ name: "b", channel: "#x", minRiskScore: 0.1 })];
    expect(routeAlert(buildAlert(), { routes })).toEqual([{ channel: "#x", routes: ["a", "b"] }]);
  });

  it("takes the stricter of minRiskScore and minRiskLevel, Watch when a route names neither", () => {
    expect(routeThreshold(route({ channel: "#a" }))).toBe(0.5);
    expect(routeThreshold(route({ channel: "#a", minRiskScore: 0.2 }))).toBe(0.2);
    expect(routeThreshold(route({ channel: "#a", minRiskScore: 0.6, minRiskLevel: "high" }))).toBe(0.75);
    expect(routeThreshold(route({ channel: "#a", minRiskScore: 0.8, minRiskLevel: "watch" }))).toBe(0.8);
  });
});

describe("minRiskScoreForLens", () => {
  const routes: AlertRoute[] = [
    route({ lens: "retention", minRiskScore: 0.7, channel: "#hr" }),
    route({ lens: "both", minRiskLevel: "high", channel: "#all" }),
    route({ lens: "poaching", competitorIds: [7], minRiskScore: 0.3, channel: "#acme" }),
  ];

  it("asks for the lowest threshold any route of the lens needs", () => {
    expect(minRiskScoreForLens(RETENTION, { routes })).toBe(0.7);
    expect(minRiskScoreForLens(ACME, { routes })).toBe(0.3);
    expect(minRiskScoreForLens(GLOBEX, { routes })).toBe(0.75);
  });

  it("returns null when nothing can use the lens, and Watch when the lens's catch-all can", () => {
    expect(minRiskScoreForLens(ACME, { routes: [route({ lens: "retention", channel: "#hr" })] })).toBeNull();
    // slack.channel never takes the poaching lens: it alone does not make the lens polled.
    expect(minRiskScoreForLens(ACME, { routes: [], defaultChannel: "#a" })).toBeNull();
    expect(minRiskScoreForLens(RETENTION, { routes: [], defaultChannel: "#a" })).toBe(0.5);
    expect(minRiskScoreForLens(ACME, { routes: [], poachingChannel: "#t" })).toBe(0.5);
    expect(minRiskScoreForLens(RETENTION, { routes: [], poachingChannel: "#t" })).toBeNull();
    expect(minRiskScoreForLens(ACME, { routes: [] })).toBeNull();
    // With routes configured, the catch-all still takes what they leave: the lens is polled for it.
    expect(
      minRiskScoreForLens(RETENTION, { routes: [route({ lens: "poaching", channel: "#acme" })], defaultChannel: "#a" }),
    ).toBe(0.5);
  });

  it("asks only for departures (score 1) when the lens's routes take nothing else", () => {
    const departures = route({ lens: "poaching", changeTypes: ["employee_departed"], channel: "#gone" });
    expect(minRiskScoreForLens(ACME, { routes: [departures] })).toBe(1);
    expect(
      minRiskScoreForLens(ACME, {
        routes: [departures, route({ lens: "poaching", minRiskScore: 0.8, channel: "#t" })],
      }),
    ).toBe(0.8);
  });
});
