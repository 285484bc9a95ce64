import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { captureStream } from "../helpers/capture-stream.js";
import { auditLogText } from "../helpers/log-audit.js";

describe("retention-sync demo", () => {
  it("wires emulator, Slack sink and daemon: the reconcile report and alerts arrive, then it stops cleanly", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "rs-demo-")), "demo");
    const stdout = captureStream();
    const stderr = captureStream();
    const code = await main(["demo", "--seconds", "12", "--dir", dir], {
      env: {},
      stdout: stdout.stream,
      stderr: stderr.stream,
    });
    // the daemon's log is audited through its logger; the demo's console output is audited here
    auditLogText("demo stdout and stderr", stdout.text() + stderr.text());
    expect(stderr.text()).toBe("");
    const out = stdout.text();
    expect(code).toBe(0);
    expect(out).toMatch(/┌─ Slack #retention-ops\n│ \*:warning: Roster reconcile\*/);
    expect(out).toMatch(/add\s+12\s+12/);
    expect(out).toMatch(/archive\s+7\s+7/);
    expect(out).toMatch(/┌─ Slack #hr-alerts/);
    expect(out).toMatch(/Demo stopped/);
    const transcript = readFileSync(join(dir, "slack-messages.jsonl"), "utf8").trim().split("\n");
    expect(transcript.length).toBe((out.match(/┌─ Slack /g) ?? []).length);
    expect(existsSync(join(dir, "hris-export.csv"))).toBe(true);
    const log = readFileSync(join(dir, "daemon.log"), "utf8");
    expect(log).toMatch(/"msg":"retention-sync daemon started"/);
    expect(log).toMatch(/"msg":"stopped"/);
  }, 60_000);
});
