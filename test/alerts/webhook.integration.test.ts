import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../../src/alerts/receive-webhook.js";
import { computeSignature } from "../../src/alerts/verify-signature.js";
import { RetentionClient } from "../../src/api/client.js";
import { run as runPoll } from "../../src/commands/poll.js";
import { captureLogs } from "../helpers/capture-logs.js";
import { type FakeSlack, startFakeSlack } from "../helpers/fake-slack.js";
import { useEmulator } from "../helpers/start-emulator.js";
import { type Harness, messageText, startHarness } from "./support/alert-harness.js";

const emulator = useEmulator({ rateLimitPerMinute: 100_000, allowLoopbackWebhooks: true });

function nameOf(change: unknown): string {
  const name = (change as { employee?: { name?: string } } | undefined)?.employee?.name;
  if (!name) throw new Error("the emulator's change carries the employee name");
  return name;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("webhook receiver with the emulator's signed deliveries", () => {
  let slack: FakeSlack;
  let harness: Harness;
  let receiver: WebhookReceiver;
  let writer: RetentionClient;

  beforeEach(async () => {
    await emulator().control.reset();
    slack = await startFakeSlack();
    harness = await startHarness(emulator(), slack);
    await harness.pipeline.poll({ now: new Date(), dryRun: false });
    writer = new RetentionClient({ baseUrl: emulator().baseUrl, apiKey: emulator().writeKey, retryBaseDelayMs: 5 });
  });
  afterEach(async () => {
    await receiver?.close();
    await writer.close();
    await harness.close();
    await slack.close();
  });

  async function register(secretsBefore: string[] = []): Promise<string> {
    let secrets: string[] = [];
    const deps = harness.pipeline.webhookDeps();
    receiver = await startWebhookReceiver(
      { host: "127.0.0.1", port: 0, path: "/webhooks/retention", maxConnections: 1_000 },
      {
        ...deps,
        // The secret exists only once the endpoint does: the handler reads the settings per request.
        settings: {
          ...deps.settings,
          webhook: {
            ...deps.settings.webhook,
            get secrets() {
              return secrets;
            },
          },
        },
      },
    );
    const created = await writer.addWebhook({ url: receiver.url, employeeWarningSensitivity: 3 });
    if (!created.secret) throw new Error("the creation response carries the secret");
    secrets = [...secretsBefore, created.secret];
    return created.secret;
  }

  it("verifies a signed delivery and posts it once even when polling sees the same change", async () => {
    await register(["whsec_old_rotated_out"]);
    const [change] = await emulator().control.signals({
      count: 1,
      organizationId: emulator().organizationId,
      riskScore: 0.9,
    });
    await until(() => slack.posted("hr-alerts").length === 1, "the webhook alert in Slack");
    const text = messageText(slack.posted("hr-alerts")[0] ?? {});
    expect(text).toContain(nameOf(change));

    const report = await harness.pipeline.poll({ now: new Date(), dryRun: false });
    expect(report.lenses.find((l) => l.lens.startsWith("retention"))).toMatchObject({
      fetched: 1,
      fresh: 0,
      duplicates: 1,
    });
    expect(slack.posted("hr-alerts")).toHaveLength(1);
  });

  it("keeps a poaching event out of slack.channel when no route or slack.poachingChannel takes that lens", async () => {
    const logs = captureLogs({ level: "info" });
    await harness.close();
    harness = await startHarness(emulator(), slack, {
      alerts: { initialLookback: 120 },
      slack: { channel: "hr-alerts" },
      logger: logs.logger,
    });
    await harness.pipeline.poll({ now: new Date(), dryRun: false });
    await register();
    const [competitor] = await harness.client.listCompetitors();
    if (!competitor) throw new Error("the demo seed has competitors");
    await emulator().control.signals({ count: 1, organizationId: competitor.id, riskScore: 0.95 });
    const [own] = await emulator().control.signals({
      count: 1,
      organizationId: emulator().organizationId,
      riskScore: 0.9,
    });
    const noted = () => logs.records().some((r) => String(r.msg).includes("1 poaching alert(s) not posted"));
    await until(() => noted() && slack.posted("hr-alerts").length === 1, "the retention alert and the poaching note");
    expect(slack.posted("hr-alerts")).toHaveLength(1);
    expect(messageText(slack.posted("hr-alerts")[0] ?? {})).toContain(nameOf(own));
  });

  it("posts a poaching.opportunity in the poaching lens with the competitor's name", async () => {
    await register();
    const [competitor] = await harness.client.listCompetitors();
    if (!competitor) throw new Error("the demo seed has competitors");
    const [change] = await emulator().control.signals({ count: 1, organizationId: competitor.id, riskScore: 0.95 });
    await until(() => slack.posted("poaching-alerts").length === 1, "the poaching alert");
    const text = messageText(slack.posted("poaching-alerts")[0] ?? {});
    expect(text).toContain(nameOf(change));
    expect(text).toContain(`Poaching · ${competitor.name}`);
    expect(slack.posted("hr-alerts")).toHaveLength(0);
  });

  it("acknowledges a signed ping without posting", async () => {
    const secret = await register();
    const body = JSON.stringify({ id: "evt_ping_1", type: "ping", createdAt: new Date().toISOString() });
    const t = Math.floor(Date.now() / 1000);
    const res = await fetch(receiver.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-service-signature": `t=${t},v1=${computeSignature(secret, t, body)}`,
      },
      body,
    });
    expect(res.status).toBe(200);
    expect(slack.calls.filter((c) => c.method === "chat.postMessage")).toHaveLength(0);
  });

  it("answers 401 to a wrong signature and 400 to a malformed header, processing nothing", async () => {
    const secret = await register();
    const body = JSON.stringify({
      id: "evt_999999_1",
      type: "employee.warning",
      organization: { id: emulator().organizationId, name: "x" },
      data: {
        competitor: null,
        employee: { id: 1, name: "Forged" },
        change: { changeType: "open_to_work", riskScore: 0.9, riskLevel: "high" },
      },
    });
    const t = Math.floor(Date.now() / 1000);
    const send = (signature: string) =>
      fetch(receiver.url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-signature": signature },
        body,
      });
    expect((await send(`t=${t},v1=${computeSignature("wrong-secret", t, body)}`)).status).toBe(401);
    expect((await send(`t=${t - 301},v1=${computeSignature(secret, t - 301, body)}`)).status).toBe(401);
    expect((await send("garbage")).status).toBe(400);
    const accepted = await send(`t=${t},v1=${computeSignature(secret, t, body)}`);
    expect(accepted.status).toBe(202);
    const again = await send(`t=${t},v1=${computeSignature(secret, t, body)}`);
    expect(await again.json()).toMatchObject({ duplicate: true });
    await until(() => slack.posted("hr-alerts").length === 1, "the reduced-form alert");
    expect(messageText(slack.posted("hr-alerts")[0] ?? {})).toContain("Forged");
  });
});

describe("the webhook inbox: one durable write before the answer, the hand-over behind it", () => {
  let slack: FakeSlack;
  let harness: Harness;

  beforeEach(async () => {
    await emulator().control.reset();
    slack = await startFakeSlack();
    harness = await startHarness(emulator(), slack);
  });
  afterEach(async () => {
    await harness.close();
    await slack.close();
  });

  function signed(secret: string, id: string, name: string): { body: string; signature: string } {
    const body = JSON.stringify({
      id,
      type: "employee.warning",
      organization: { id: emulator().organizationId, name: "x" },
      data: {
        competitor: null,
        employee: { id: 1, name },
        change: { changeType: "open_to_work", riskScore: 0.9, riskLevel: "high" },
      },
    });
    const t = Math.floor(Date.now() / 1000);
    return { body, signature: `t=${t},v1=${computeSignature(secret, t, body)}` };
  }

  it("answers 202 while Slack is down, and posts once Slack is back", async () => {
    const secret = "whsec_inbox_test";
    const deps = harness.pipeline.webhookDeps();
    const receiver = await startWebhookReceiver(
      { host: "127.0.0.1", port: 0, path: "/hook", maxConnections: 1_000 },
      { ...deps, settings: { ...deps.settings, webhook: { ...deps.settings.webhook, secrets: [secret] } } },
    );
    try {
      slack.setOutage(true);
      const { body, signature } = signed(secret, "evt_777001_1", "Inbox Person");
      const res = await fetch(receiver.url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-signature": signature },
        body,
      });
      expect(res.status).toBe(202);
      await harness.pipeline.inbox.drain();
      expect(slack.posted("hr-alerts")).toHaveLength(0);
      expect(await harness.pipeline.delivery.outbox.size()).toBe(1);
      slack.setOutage(false);
      await harness.pipeline.delivery.flush();
      expect(slack.posted("hr-alerts").map((m) => messageText(m))).toEqual([expect.stringContaining("Inbox Person")]);
    } finally {
      await receiver.close();
    }
  });

  it("hands over after a restart an event accepted just before the process stopped, once", async () => {
    const { item, lens } = {
      item: {
        key: "chg:777002",
        employeeId: 1,
        changeType: "open_to_work",
        riskScore: 0.9,
        riskLevel: "high" as const,
        detectedAt: new Date().toISOString(),
        employee: { id: 1, name: "Accepted Then Killed" },
      },
      lens: { kind: "retention" as const, organizationId: emulator().organizationId },
    };
    expect(
      await harness.pipeline.inbox.accept("evt:evt_777002_1", { item, lens, keys: ["evt:evt_777002_1", item.key] }),
    ).toBe(true);
    // The process stops before the hand-over; the next start drains what waits.
    await harness.restart();
    expect(
      await harness.pipeline.inbox.accept("evt:evt_777002_1", { item, lens, keys: ["evt:evt_777002_1", item.key] }),
    ).toBe(false);
    await harness.pipeline.inbox.drain();
    await harness.pipeline.inbox.drain();
    expect(slack.posted("hr-alerts").map((m) => messageText(m))).toEqual([
      expect.stringContaining("Accepted Then Killed"),
    ]);
    expect(await harness.pipeline.ledger.handled(["evt:evt_777002_1", "chg:777002"])).toEqual(
      new Set(["evt:evt_777002_1", "chg:777002"]),
    );
  });
});

describe("poll --once --dry-run", () => {
  it("prints the messages it would post, posts nothing and commits no cursor", async () => {
    await emulator().control.reset();
    const slack = await startFakeSlack();
    const dir = mkdtempSync(join(tmpdir(), "rs-poll-cmd-"));
    try {
      const change = (
        await emulator().control.signals({
          count: 1,
          organizationId: emulator().organizationId,
          riskScore: 0.85,
          changeType: "open_to_work",
        })
      )[0];
      const out: string[] = [];
      const sink = (into: string[]) =>
        new Writable({
          write(chunk, _enc, done) {
            into.push(String(chunk));
            done();
          },
        });
      const env = {
        RETENTION_API_URL: emulator().baseUrl,
        RETENTION_API_KEY: emulator().readKey,
        SLACK_BOT_TOKEN: slack.token,
        SLACK_API_URL: slack.url,
        SLACK_CHANNEL: "hr-alerts",
        RETENTION_SYNC_STATE: join(dir, "state.sqlite"),
        LOG_LEVEL: "warn",
      };
      const io = (into: string[]) => ({ argv: ["--once", "--dry-run"], env, stdout: sink(into), stderr: sink([]) });
      expect(await runPoll(io(out))).toBe(0);
      const printed = out.join("");
      expect(printed).toContain("would be posted");
      expect(printed).toContain(nameOf(change));
      expect(printed).toContain("hr-alerts");
      expect(slack.calls.filter((c) => c.method === "chat.postMessage")).toHaveLength(0);
      const second: string[] = [];
      expect(await runPoll(io(second))).toBe(0);
      expect(second.join("")).toContain(nameOf(change));

      const real: string[] = [];
      expect(await runPoll({ ...io(real), argv: ["--once"] })).toBe(0);
      expect(slack.posted("hr-alerts").length).toBeGreaterThanOrEqual(1);
      expect(real.join("")).toContain("posted");
    } finally {
      await slack.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
