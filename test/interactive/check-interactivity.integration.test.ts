import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkInteractivity, neededScopes } from "../../src/commands/check-interactivity.js";
import { CheckReport } from "../../src/commands/check-report.js";
import { configSchema } from "../../src/config/schema.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";

let slack: FakeSlack;
beforeAll(async () => {
  slack = await startFakeSlack();
});
afterAll(async () => {
  await slack.close();
});

function run(config: ReturnType<typeof configSchema.parse>, scopes: string[] | undefined) {
  const out = new PassThrough();
  let text = "";
  out.on("data", (chunk) => {
    text += String(chunk);
  });
  const report = new CheckReport(out);
  return checkInteractivity(config, scopes, report).then(() => ({ text, code: report.exitCode() }));
}

describe("check: the buttons", () => {
  const base = () => ({ token: slack.token, appToken: slack.appToken, apiUrl: slack.url });

  it("needs usergroups:read only when a rule names user groups", async () => {
    const open = configSchema.parse({ slack: base() });
    expect(neededScopes(open)).toEqual(["chat:write"]);
    const groups = configSchema.parse({
      slack: { ...base(), interactivity: { stopTracking: { allowedUsergroups: ["S0HRADMIN"] } } },
    });
    expect(neededScopes(groups)).toEqual(["chat:write", "usergroups:read"]);
    const missing = await run(groups, ["chat:write", "users:read.email"]);
    expect(missing.text).toContain("✗ the Slack bot token lacks scope(s) the buttons need: usergroups:read");
    expect(missing.code).toBe(2);
    const fine = await run(groups, ["chat:write", "usergroups:read"]);
    expect(fine.text).toContain("✓ Slack bot scopes for the buttons: chat:write, usergroups:read");
    expect(fine.code).toBe(0);
  });

  it("says what to do for a rejected app token and a missing signing secret", async () => {
    const rejected = await run(
      configSchema.parse({ slack: { ...base(), appToken: "xapp-1-A0NOPE-0000000000-nope" } }),
      [],
    );
    expect(rejected.text).toContain("✗ SLACK_APP_TOKEN rejected (invalid_auth)");
    const http = await run(configSchema.parse({ slack: { ...base(), interactivity: { mode: "http" } } }), undefined);
    expect(http.text).toContain("✗ Slack buttons in http mode need SLACK_SIGNING_SECRET");
    const off = await run(configSchema.parse({ slack: { token: slack.token, apiUrl: slack.url } }), undefined);
    expect(off.text).toContain("- Slack buttons off");
    expect(off.code).toBe(0);
  });
});
