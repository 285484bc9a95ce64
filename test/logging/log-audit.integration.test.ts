import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, inject, it } from "vitest";
import { RetentionClient } from "../../src/api/client.js";
import { openRuntime } from "../../src/app/runtime.js";
import { loadConfig } from "../../src/config/load-config.js";
import { createLogger, silentLogger } from "../../src/logger.js";
import { startFakeSlack } from "../helpers/fake-slack.js";
import { knownSecrets, registerSecret } from "../helpers/known-secrets.js";
import { type AuditLine, auditedLines, findLeaks, formatLeakReport, levelName } from "../helpers/log-audit.js";
import { startTestEmulator } from "../helpers/start-emulator.js";
import type { FileAuditSummary } from "../setup/log-audit-summary.js";

/** A value unique to one test, so that it finds its own lines among everything audited. */
const marker = (name: string) => `${name}-${randomBytes(6).toString("hex")}`;
const linesWith = (text: string): AuditLine[] => auditedLines().filter((l) => l.line.includes(text));

describe("findLeaks (the scan run at the end of every test file)", () => {
  const key = "rk_live_0a1b2c3d4e5f6a7b8c9d";
  const token = `xoxb-${"7".repeat(12)}-${"9".repeat(12)}-abcdefABCDEF`;

  it("finds a registered secret and an unregistered token, reporting labels and origin, never the values", () => {
    const lines: AuditLine[] = [
      { origin: "test/a.test.ts > clean", line: '{"level":30,"msg":"fine"}' },
      { origin: "test/a.test.ts > leaky", line: `{"level":20,"msg":"GET /me with ${key} and ${token}"}` },
    ];
    const leaks = findLeaks(lines, [{ label: "service API key", value: key }]);
    expect(leaks.map((l) => [l.label, l.origin])).toEqual([
      ["service API key", "test/a.test.ts > leaky"],
      ["Slack token (pattern xox?-)", "test/a.test.ts > leaky"],
    ]);
    expect(leaks[0]?.excerpt).toContain("‹service API key›");
    const report = formatLeakReport("test/a.test.ts", leaks);
    expect(report).toContain("test/a.test.ts > leaky");
    for (const text of [JSON.stringify(leaks), report]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(token);
    }
  });

  it("does not flag hints such as (xoxb-...) or whsec_..., and the registry ignores values too short to be secrets", () => {
    const hint = "required: set SLACK_BOT_TOKEN (xoxb-...) and RETENTION_WEBHOOK_SECRETS (whsec_...)";
    expect(findLeaks([{ origin: "o", line: hint }], [])).toEqual([]);
    expect(findLeaks([{ origin: "o", line: "secret whsec_0123456789abcdef" }], [])).toHaveLength(1);
    expect(findLeaks([{ origin: "o", line: "set SLACK_APP_TOKEN (xapp-...)" }], [])).toEqual([]);
    expect(findLeaks([{ origin: "o", line: "app token xapp-1-A0FAKE0001-1-0a1b2c3d4e" }], [])).toEqual([
      expect.objectContaining({ label: "Slack app-level token (pattern xapp-)" }),
    ]);
    registerSecret("xoxb", "too short to be a secret");
    expect(knownSecrets().map((s) => s.label)).not.toContain("too short to be a secret");
  });
});

describe("the audit hook", () => {
  it("is wired with its global report in the running config", () => {
    expect(inject("logAuditDir")).toMatch(/log-audit\/run-\d+$/);
  });

  it("gets every line of a silent logger, at trace, tagged with the test", () => {
    const text = marker("silent-trace");
    silentLogger().trace({ text }, "deep");
    const mine = linesWith(text);
    expect(mine).toHaveLength(1);
    expect(levelName(mine[0]?.line ?? "")).toBe("trace");
    expect(mine[0]?.origin).toBe(
      "test/logging/log-audit.integration.test.ts > the audit hook > gets every line of a silent logger, at trace, tagged with the test",
    );
  });

  it("covers loggers created inside src code: the emulator's and the API client's silent loggers", async () => {
    const emulator = await startTestEmulator({ seed: "empty" });
    const client = new RetentionClient({ baseUrl: emulator.baseUrl, apiKey: emulator.readKey });
    try {
      await client.me();
    } finally {
      await client.close();
      await emulator.close();
    }
    const mine = auditedLines().filter((l) => l.origin.endsWith("API client's silent loggers"));
    // packages/emulator/src/server.ts logs each request, src/api/api-caller.ts each attempt, both at debug
    expect(
      mine.some((l) => l.line.includes('"msg":"emulator request"') && l.line.includes('"path":"/api/v1/me"')),
    ).toBe(true);
    expect(mine.filter((l) => levelName(l.line) === "debug").length).toBeGreaterThanOrEqual(2);
    expect(knownSecrets().map((s) => s.value)).toEqual(expect.arrayContaining([emulator.writeKey, emulator.readKey]));
  });

  it("covers the runtime logger at its configured level: the destination gets info, the audit gets debug too", async () => {
    const text = marker("runtime");
    const written: string[] = [];
    const io = { argv: [], env: {}, stdout: new PassThrough(), stderr: new PassThrough() };
    const runtime = await openRuntime(loadConfig({ env: { LOG_LEVEL: "info" } }), io, {
      logDestination: { write: (line: string) => written.push(line) },
    });
    runtime.logger.debug({ text }, "hidden from the destination");
    runtime.logger.info({ text }, "shown");
    await runtime.close();
    expect(written.filter((l) => l.includes(text)).map((l) => levelName(l))).toEqual(["info"]);
    expect(linesWith(text).map((l) => levelName(l.line))).toEqual(["debug", "info"]);
  });

  it("sees lines after createLogger's scrubbing: a logger told the secret does not leak it, one not told does", () => {
    const told = marker("told-secret");
    const untold = marker("untold-secret");
    createLogger({ level: "error", secrets: [told] }).debug(`with ${told}`);
    createLogger({ level: "error" }).debug(`with ${untold}`);
    expect(knownSecrets().map((s) => s.value)).toContain(told);
    const local = [
      { label: "told", value: told },
      { label: "untold", value: untold },
    ];
    // the untold value is not registered suite-wide, so this file itself stays clean
    const leaks = findLeaks([...linesWith("with ")], local);
    expect(leaks.map((l) => l.label)).toEqual(["untold"]);
    expect(linesWith(told)).toHaveLength(0);
  });
});

describe("the registry of the test world's secrets", () => {
  it("knows emulator keys, control-API keys, webhook secrets (also once a reset dropped them) and fake Slack secrets", async () => {
    const emulator = await startTestEmulator({ seed: "empty", allowLoopbackWebhooks: true });
    const slack = await startFakeSlack({ token: `xoxb-${randomBytes(8).toString("hex")}` });
    const client = new RetentionClient({ baseUrl: emulator.baseUrl, apiKey: emulator.writeKey });
    try {
      const created = await emulator.control.createKey({ scopes: ["read"] });
      const hook = await client.addWebhook({ url: "http://127.0.0.1:9/hook" });
      await emulator.control.reset();
      const known = knownSecrets().map((s) => s.value);
      expect(known).toEqual(
        expect.arrayContaining([
          emulator.writeKey,
          emulator.readKey,
          created.key,
          hook.secret,
          slack.token,
          slack.appToken,
          slack.signingSecret,
        ]),
      );
    } finally {
      await client.close();
      await slack.close();
      await emulator.close();
    }
  });
});

describe("a test file whose lines leak", () => {
  it("fails the run, naming the label and the test but never the secret", async () => {
    const key = marker("fixture-key");
    const token = `xoxb-${randomBytes(12).toString("hex")}`;
    const dir = mkdtempSync(join(tmpdir(), "rs-log-audit-"));
    try {
      const child = spawn(
        process.execPath,
        [resolve("node_modules/vitest/vitest.mjs"), "run", "--config", "test/logging/fixtures/vitest.leaky.config.ts"],
        {
          env: {
            PATH: process.env.PATH,
            LOG_AUDIT_DIR: dir,
            LEAK_FIXTURE_KEY: key,
            LEAK_FIXTURE_TOKEN: token,
            NO_COLOR: "1",
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let output = "";
      child.stdout.on("data", (chunk) => {
        output += String(chunk);
      });
      child.stderr.on("data", (chunk) => {
        output += String(chunk);
      });
      const [code] = (await once(child, "close")) as [number | null];
      expect(code, output).toBe(1);
      expect(output).toContain("fixture API key");
      expect(output).toContain("Slack token (pattern xox?-)");
      expect(output).toContain(
        "leaky.fixture.ts > logs a registered key and an unregistered Slack token where nobody looks",
      );
      expect(output).toMatch(
        /log audit: 2 lines \(trace 1, debug 1\) from 1 test files, 1 loggers, 2 secret leak\(s\)/,
      );
      expect(output).not.toContain(key);
      expect(output).not.toContain(token);
      const [runDir] = readdirSync(dir);
      const [summaryFile] = readdirSync(join(dir, runDir ?? ""));
      const summary = JSON.parse(readFileSync(join(dir, runDir ?? "", summaryFile ?? ""), "utf8")) as FileAuditSummary;
      expect(summary).toMatchObject({ file: "test/logging/fixtures/leaky.fixture.ts", lines: 2, leaks: 2 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
