import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli.js";
import { captureStream } from "../helpers/capture-stream.js";
import { auditLogText } from "../helpers/log-audit.js";

/** A second `demo` beside a running one: if it wrongly starts a demo of its own, that demo stops after a minute. */
async function runCliCaptured(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = captureStream();
  const stderr = captureStream();
  const signal = AbortSignal.timeout(60_000);
  const code = await main(argv, { env: {}, stdout: stdout.stream, stderr: stderr.stream, signal });
  auditLogText(`demo ${argv.join(" ")}`, stdout.text() + stderr.text());
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

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
    // The sample export has broken rows: the report needs attention, and names every step.
    expect(out).toMatch(
      /┌─ Slack #retention-ops\n│ \*:warning: Roster reconcile needs attention: \d+ rows of the export need fixing\*/,
    );
    expect(out).toMatch(/│ planned: add 12, revive 1, track \d+, untrack 0, archive 7, erase 0\n/);
    expect(out).toMatch(/│ done: add 12, revive 1, track \d+, untrack 0, archive 7, erase 0\n/);
    expect(out).toMatch(
      /│ `{3}Demo Joiner 1 \(E\d+, [\w ]+\) https:\/\/www\.linkedin\.com\/in\/demo-joiner-1 - joiner, line \d+\n/,
    );
    expect(out).toMatch(/┌─ Slack #hr-alerts/);
    expect(out).toMatch(/Demo stopped/);
    // What it says is what happens: the report is the first message, before any alert...
    expect(out).toContain("its report arrives in #retention-ops before the daemon starts");
    const shown = [...out.matchAll(/┌─ Slack (\S+)/g)].map((m) => m[1]);
    expect(shown[0]).toBe("#retention-ops");
    expect(shown.slice(1)).toContain("#hr-alerts");
    // ...and the broken rows it counts are the report's.
    const reported = /needs attention: (\d+) rows of the export need fixing/.exec(out)?.[1];
    expect(out).toMatch(new RegExp(`; ${reported} broken rows need fixing, named in the report\\.`));
    expect(out).not.toMatch(/&lt;|&gt;|&amp;/);
    const transcript = readFileSync(join(dir, "slack-messages.jsonl"), "utf8").trim().split("\n");
    expect(transcript.length).toBe((out.match(/┌─ Slack /g) ?? []).length);
    expect(existsSync(join(dir, "hris-export.csv"))).toBe(true);
    const log = readFileSync(join(dir, "daemon.log"), "utf8");
    expect(log).toMatch(/"msg":"retention-sync daemon started"/);
    expect(log).toMatch(/"msg":"stopped"/);
  }, 60_000);

  it("--press ack:1 presses Acknowledge on the first alert shown and renders the updated message", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "rs-demo-press-")), "demo");
    const stdout = captureStream();
    const stderr = captureStream();
    const code = await main(["demo", "--seconds", "12", "--dir", dir, "--press", "ack:1"], {
      env: {},
      stdout: stdout.stream,
      stderr: stderr.stream,
    });
    auditLogText("demo --press stdout and stderr", stdout.text() + stderr.text());
    expect(stderr.text()).toBe("");
    expect(code).toBe(0);
    const out = stdout.text();
    expect(out).toMatch(/│ \[ Acknowledge \] \[ Snooze ▾ \] \[ Stop tracking \] \[ Open profile ↗ \]/);
    expect(out).toMatch(/▶ pressing ack on #[\w-]+ message [\d.]+ as <@U0DEMOUSER>/);
    const updated = out.slice(out.indexOf("(updated)"));
    expect(updated).toMatch(/^\(updated\)\n(│ .*\n)*│ {3}:white_check_mark: Acknowledged by <@U0DEMOUSER> at /);
    expect(updated.slice(0, updated.indexOf("└─"))).not.toContain("[ Acknowledge ]");
  }, 60_000);

  it("--press while a demo runs presses in that demo once, and starts no second demo", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "rs-demo-running-")), "demo");
    const stdout = captureStream();
    const stderr = captureStream();
    const stop = new AbortController();
    const running = main(["demo", "--dir", dir], {
      env: {},
      stdout: stdout.stream,
      stderr: stderr.stream,
      signal: stop.signal,
    });
    try {
      await vi.waitFor(() => expect(stdout.text()).toContain("[ Acknowledge ]"), { timeout: 90_000, interval: 200 });
      const again = await runCliCaptured(["demo", "--dir", dir]);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain(`a demo is already running in ${dir}`);

      const press = await runCliCaptured(["demo", "--press", "ack:1", "--dir", dir]);
      expect(press.stderr).toBe("");
      expect(press.code).toBe(0);
      expect(press.stdout).not.toContain("retention-sync demo: everything runs");
      expect(press.stdout).toMatch(/^▶ pressing ack on #[\w-]+ message [\d.]+ as <@U0DEMOUSER>\n/);
      expect(press.stdout).toMatch(/\(updated\)\n(│ .*\n)*│ {3}:white_check_mark: Acknowledged by <@U0DEMOUSER> at /);
    } finally {
      stop.abort();
    }
    expect(await running).toBe(0);
    auditLogText("running demo stdout and stderr", stdout.text() + stderr.text());
    const out = stdout.text();
    expect(out.match(/▶ pressing ack/g)).toHaveLength(1);
    expect(out.match(/ \(updated\)\n/g)).toHaveLength(1);
    expect(out.match(/retention-sync demo: everything runs/g)).toHaveLength(1);
    expect(existsSync(join(dir, "control.json"))).toBe(false);
  }, 180_000);

  it("refuses a --press it cannot read", async () => {
    const stdout = captureStream();
    const stderr = captureStream();
    const code = await main(["demo", "--press", "delete:1"], { env: {}, stdout: stdout.stream, stderr: stderr.stream });
    expect(code).toBe(2);
    expect(stderr.text()).toContain("--press expects ACTION:N");
  });
});
