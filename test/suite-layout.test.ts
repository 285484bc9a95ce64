import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The rule that sorts test files into vitest projects (vitest.config.ts): a file under test/ that
 * starts an emulator, the fake Slack, an HTTP server or a child process, itself or through a test
 * helper it calls, is named `*.integration.test.ts`; test/resilience/** and
 * packages/emulator/test/** are projects of their own. This checks that no unit file breaks it,
 * by the calls it makes: a new helper that starts something belongs in the list below.
 */

/** Calls that start a server or a process: test helpers, src entry points, node:http, node:child_process. */
const STARTS_SOMETHING =
  /(?<![.\w])(?:useEmulator|startTestEmulator|startEmulator|startFakeSlack|startDaemonWorld|startInteractiveWorld|startRefusingProxy|startTinyService|startTestPostgres|startTcpProxy|start\w*Fake|start\w*Server|startHarness|startDaemon|startConfiguredDaemon|startWebhookReceiver|createServer|spawn|spawnSync|fork|exec|execFile|execFileSync|execSync|bundleEntry)\s*\(|\.listen\s*\(|\b(?:main|runCli)\(\s*\[\s*"(?:run|demo|emulator|sandbox)"/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** The code of a file without its comments (a comment may well say "spawn (...)"). */
function code(file: string): string {
  return readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|\s)\/\/.*$/gm, "$1");
}

describe("test layout", () => {
  it("a unit test file starts no server and no process (else it is named *.integration.test.ts)", () => {
    const unit = testFiles("test").filter(
      (f) => !f.endsWith(".integration.test.ts") && !f.startsWith(join("test", "resilience")),
    );
    expect(unit.length).toBeGreaterThan(20);
    const offenders = unit
      .filter((f) => resolve(f) !== resolve("test/suite-layout.test.ts"))
      .flatMap((f) => {
        const call = STARTS_SOMETHING.exec(code(f))?.[0];
        return call ? [`${f} calls ${call}...: rename it to *.integration.test.ts`] : [];
      });
    expect(offenders).toEqual([]);
  });

  it("the check sees what every integration test starts (the list of calls is complete)", () => {
    const integration = testFiles("test").filter((f) => f.endsWith(".integration.test.ts"));
    const unseen = integration.filter((f) => !STARTS_SOMETHING.test(code(f)));
    expect(integration.length).toBeGreaterThan(20);
    expect(unseen).toEqual([]);
  });
});
