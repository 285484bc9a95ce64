import { describe, expect, it } from "vitest";
import { minRiskScoreForLens } from "../../src/alerts/min-risk-score.js";
import { routeAlert, routeThreshold } from "../../src/alerts/route-alert.js";
import type { AlertRoute } from "../../src/config/schema.js";
import { ACME, buildAlert, GLOBEX, RETENTION } from "./support/build-alert.js";

const route = (r: Partial<AlertRoute> & { channel: string }): AlertRoute => ({ lens: "both", ...r });

describe("routeAlert", () => {
  it("sends everything at Watch or above to slack.channel when no routes are configured", () => {
    const config = { routes: [], defaultChannel: "#alerts" };
    expect(routeAlert(buildAlert({ riskScore: 0.5, riskLevel: "watch" }), config)).toEqual([
      { channel: "#alerts", routes: ["default"] },
    ]);
    expect(routeAlert(buildAlert({ riskScore: 0.49, riskLevel: "low" }), config)).toEqual([]);
    expect(routeAlert(buildAlert({ lens: ACME, riskScore: 0.9 }), config).map((m) => m.channel)).toEqual(["#alerts"]);
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

  it("delivers departures to every route of their lens whatever the thresholds and filters", () => {
    const routes: AlertRoute[] = [
      route({ lens: "retention", minRiskScore: 0.95, changeTypes: ["open_to_work"], channel: "#strict" }),
      route({ lens: "retention", departments: ["Finance"], channel: "#finance" }),
      route({ lens: "poaching", channel: "#poach" }),
      route({ lens: "poaching", competitorIds: [9], channel: "#globex" }),
    ];
    const departure = { changeType: "employee_departed", riskScore: null, riskLevel: "high" as const };
    expect(routeAlert(buildAlert({ ...departure, lens: RETENTION }), { routes }).map((m) => m.channel)).toEqual([
      "#strict",
      "#finance",
    ]);
    expect(routeAlert(buildAlert({ ...departure, lens: ACME }), { routes }).map((m) => m.channel)).toEqual(["#poach"]);
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

  it("returns null when no route can use the lens, and Watch for the default route", () => {
    expect(minRiskScoreForLens(ACME, { routes: [route({ lens: "retention", channel: "#hr" })] })).toBeNull();
    expect(minRiskScoreForLens(ACME, { routes: [], defaultChannel: "#a" })).toBe(0.5);
    expect(minRiskScoreForLens(ACME, { routes: [] })).toBeNull();
  });
});
