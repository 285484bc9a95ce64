/**
 * The buttons with replicas on Postgres: only the leader holds the Socket Mode connection; when it
 * stops, the standby takes over the lead and the connection, and answers the buttons.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConfiguredDaemon, startConfiguredDaemon } from "../../src/app/configured-daemon.js";
import { loadConfig } from "../../src/config/load-config.js";
import { captureStream } from "../helpers/capture-stream.js";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres-server.js";
import {
  blocksText,
  configYaml,
  current,
  type InteractiveWorld,
  rootAbout,
  startInteractiveWorld,
  until,
} from "./support/interactive-world.js";

let world: InteractiveWorld;
let postgres: TestPostgres;
beforeAll(async () => {
  world = await startInteractiveWorld();
  postgres = await startTestPostgres();
}, 60_000);
afterAll(async () => {
  await world?.close();
  await postgres?.stop();
});

async function replica(name: string, state: string): Promise<ConfiguredDaemon> {
  const file = await world.files.write(`${name}.yaml`, configYaml());
  const env = {
    RETENTION_API_URL: world.emulator.baseUrl,
    RETENTION_API_KEY: world.emulator.writeKey,
    SLACK_BOT_TOKEN: world.slack.token,
    SLACK_APP_TOKEN: world.slack.appToken,
    SLACK_API_URL: world.slack.url,
    SLACK_CHANNEL: "#hr-alerts",
    RETENTION_SYNC_STATE: state,
    LOG_LEVEL: "info",
  };
  const logs = captureStream();
  return startConfiguredDaemon(loadConfig({ file, env }), { argv: [], env, stdout: logs.stream, stderr: logs.stream });
}

const readyz = async (daemon: ConfiguredDaemon) => (await fetch(`${daemon.daemon.opsUrl}/readyz`)).text();

describe("Socket Mode with replicas", () => {
  it("only the leader connects; the next leader connects and answers", async () => {
    const state = await postgres.createDatabase();
    const a = await replica("a", state);
    await until("a leads and connects", async () =>
      (await readyz(a)).includes("role: leader") && world.slack.socketConnections() === 1 ? true : undefined,
    );
    const b = await replica("b", state);
    await until("b stands by", async () => ((await readyz(b)).includes("role: standby") ? true : undefined));
    expect(await readyz(b)).not.toContain("slack socket mode");
    expect(world.slack.socketConnections()).toBe(1);

    const ids: number[] = [];
    for await (const e of world.client.iterateEmployees()) ids.push(e.id);
    const [jane] = ids;
    if (jane === undefined) throw new Error("no people");
    await world.emulator.control.signals({ employeeId: jane, changeType: "open_to_work", riskScore: 0.9 });
    const root = await rootAbout(world.slack, jane);

    await a.stop("test: the leader goes away");
    await until("b leads and connects", async () =>
      (await readyz(b)).includes("slack socket mode: connected") && world.slack.socketConnections() === 1
        ? true
        : undefined,
    );
    const press = world.slack.pressButton({
      channel: root.channel,
      ts: root.ts,
      actionId: "rs_ack",
      userId: "U0ALICE",
    });
    await world.slack.waitForAck(press.envelopeId);
    await until("the acknowledged message", () =>
      blocksText(current(world.slack, root)).includes("Acknowledged by <@U0ALICE>") ? true : undefined,
    );
    await b.stop("test over");
    expect(world.slack.socketConnections()).toBe(0);
  }, 90_000);
});
