/**
 * `retention-sync webhooks register|list|enable|disable|delete` through the CLI's main(), against
 * the emulator on loopback: what is printed where (the signing secret on stdout, once), what the
 * service ends up holding, and the exit code and fix of each failure.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { freePort } from "../helpers/free-port.js";
import { registerSecret } from "../helpers/known-secrets.js";
import { useEmulator } from "../helpers/start-emulator.js";
import { runCli } from "./cli-harness.js";

const emulator = useEmulator({ seed: "empty", allowLoopbackWebhooks: true });
const HOOK = "https://hooks.example.com/webhooks/retention";

beforeEach(async () => {
  await emulator().control.reset();
});

function env(key = emulator().writeKey, apiUrl = emulator().baseUrl): NodeJS.ProcessEnv {
  return { RETENTION_API_URL: apiUrl, RETENTION_API_KEY: key, LOG_LEVEL: "info" };
}

const webhooks = (args: string[], environment = env()) => runCli(["webhooks", ...args], environment);

/** The endpoints the emulator holds, with their secrets (the control API's state dump). */
async function held(): Promise<Array<Record<string, unknown>>> {
  const { webhooks: list } = await emulator().control.state(true);
  return Array.isArray(list) ? (list as Array<Record<string, unknown>>) : [];
}

async function registered(args: string[] = []): Promise<{ id: string; secret: string }> {
  const result = await webhooks(["register", "--url", HOOK, "--json", ...args]);
  expect(result.code, result.stderr).toBe(0);
  const parsed = JSON.parse(result.stdout) as { endpoint: { id: string }; secret: string };
  registerSecret(parsed.secret, "webhook secret printed by webhooks register");
  return { id: parsed.endpoint.id, secret: parsed.secret };
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe("webhooks register", () => {
  it("registers the URL and prints the record and the signing secret once, on stdout only, with where it goes", async () => {
    const result = await webhooks(["register", "--url", HOOK, "--description", "retention-sync"]);
    expect(result.code, result.stderr).toBe(0);
    const [endpoint] = await held();
    const secret = String(endpoint?.secret);
    registerSecret(secret, "webhook secret printed by webhooks register");
    expect(endpoint).toMatchObject({ url: HOOK, description: "retention-sync", enabled: true });
    expect(occurrences(result.stdout, secret)).toBe(1);
    expect(result.stderr).not.toContain(secret);
    expect(result.stdout).toContain(`${String(endpoint?.id)}  enabled  ${HOOK}`);
    expect(result.stdout).toMatch(/shown only this once/);
    expect(result.stdout).toContain("RETENTION_WEBHOOK_SECRETS");
    expect(result.stdout).toContain("alerts.webhook.secrets");
    expect(result.stdout).toMatch(/comma-separated/);

    const list = await webhooks(["list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(String(endpoint?.id));
    expect(list.stdout).not.toContain(secret);
    const listJson = await webhooks(["list", "--json"]);
    expect(listJson.stdout).not.toContain(secret);
  });

  it("--json carries the record, the secret and where it goes; lens flags and sensitivities reach the service", async () => {
    const result = await webhooks([
      "register",
      "--url",
      HOOK,
      "--no-employee-warnings",
      "--poaching-sensitivity",
      "5",
      "--json",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
    registerSecret(String(parsed.secret), "webhook secret printed by webhooks register --json");
    expect(parsed).toMatchObject({
      endpoint: { url: HOOK, enabled: true, employeeWarnings: false, poachingOpportunitySensitivity: 5 },
      secret: (await held())[0]?.secret,
      secretGoesTo: { env: "RETENTION_WEBHOOK_SECRETS", config: "alerts.webhook.secrets" },
    });
    expect(parsed.endpoint).not.toHaveProperty("secret");
    expect(result.stderr).toMatch(/shown only this once/);
    expect(await held()).toMatchObject([{ employeeWarnings: false, poachingOpportunitySensitivity: 5 }]);
  });

  it("refuses a plain http URL before any request, naming HTTPS and the fix (exit 2)", async () => {
    await emulator().control.clearRequests();
    const result = await webhooks(["register", "--url", "http://hooks.example.com/webhooks/retention"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/only to public HTTPS URLs.*TLS-terminating proxy/);
    expect(await emulator().control.requests()).toEqual([]);
    expect(await held()).toEqual([]);
  });

  it("lets http://127.0.0.1 through only because the API is the emulator on loopback", async () => {
    const url = `http://127.0.0.1:${await freePort()}/webhooks/retention`;
    const { id } = await registered(["--url", url]);
    expect(await held()).toMatchObject([{ id, url }]);
    const localhost = await webhooks(["register", "--url", "http://localhost:9401/webhooks/retention"]);
    expect(localhost.code).toBe(2);
  });

  it("a sensitivity outside 1..5 is a usage error naming the flag", async () => {
    const result = await webhooks(["register", "--url", HOOK, "--employee-sensitivity", "7"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--employee-sensitivity "7": expected a level 1\.\.5/);
    expect(await held()).toEqual([]);
  });

  it("a read-only key: exit 2, naming the write scope and that keys cannot be widened; nothing registered", async () => {
    const result = await webhooks(["register", "--url", HOOK], env(emulator().readKey));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/read-only \(403 INSUFFICIENT_SCOPE\).*write scope.*cannot be widened/);
    expect(result.stderr).toContain("RETENTION_API_KEY");
    expect(await held()).toEqual([]);
  });

  it("the service's own refusal (a private address) is exit 2 with its sentence", async () => {
    const result = await webhooks(["register", "--url", "https://10.1.2.3/webhooks/retention"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/refused the request \(400\): .*url.*public HTTPS/);
  });
});

describe("webhooks list, enable, disable, delete", () => {
  it("lists every endpoint with its state, lenses and delivery health", async () => {
    const { id } = await registered(["--employee-sensitivity", "2"]);
    const result = await webhooks(["list"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${id}  enabled  ${HOOK}`);
    expect(result.stdout).toContain("employee warnings on (sensitivity 2: risk 0.75 and up)");
    expect(result.stdout).toContain("poaching opportunities on (sensitivity 3: risk 0.50 and up)");
    expect(result.stdout).toMatch(/deliveries: 0 failed in a row; no delivery yet/);
    const json = JSON.parse((await webhooks(["list", "--json"])).stdout) as unknown[];
    expect(json).toMatchObject([{ id, url: HOOK, enabled: true, health: { consecutiveFailures: 0 } }]);
  });

  it("with none registered, list says how to register", async () => {
    const result = await webhooks(["list"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/No webhook endpoint is registered.*webhooks register --url/);
  });

  it("disable then enable flips the endpoint at the service", async () => {
    const { id } = await registered();
    const off = await webhooks(["disable", id]);
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toMatch(/Disabled .*history are kept/);
    expect(await held()).toMatchObject([{ id, enabled: false }]);
    const on = await webhooks(["enable", id]);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toContain(`${id}  enabled`);
    expect(await held()).toMatchObject([{ id, enabled: true }]);
  });

  it("delete without --yes deletes nothing and says why (exit 2); with --yes the endpoint is gone", async () => {
    const { id } = await registered();
    const refused = await webhooks(["delete", id]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/delivery history .* needs --yes.*Nothing was deleted/);
    expect(await held()).toMatchObject([{ id }]);
    const deleted = await webhooks(["delete", id, "--yes"]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(await held()).toEqual([]);
  });

  it("an unknown id is exit 2 pointing at webhooks list", async () => {
    const result = await webhooks(["enable", "whe_nope"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no webhook endpoint whe_nope .*webhooks list/);
  });

  it("a read-only key may list but not disable (exit 2 with the fix)", async () => {
    const { id } = await registered();
    expect((await webhooks(["list"], env(emulator().readKey))).code).toBe(0);
    const result = await webhooks(["disable", id], env(emulator().readKey));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/write scope/);
    expect(await held()).toMatchObject([{ id, enabled: true }]);
  });

  it("an API URL without /api/v1 gets the hint (exit 2)", async () => {
    const result = await webhooks(["list"], env(emulator().writeKey, emulator().url));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /answered 404 .*RETENTION_API_URL must be the service's base URL including \/api\/v1/,
    );
  });

  it("an unreachable service is exit 1, naming RETENTION_API_URL", async () => {
    const result = await webhooks(["list"], env(emulator().writeKey, `http://127.0.0.1:${await freePort()}/api/v1`));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/unreachable .*check RETENTION_API_URL/);
  });

  it("no subcommand, or an id where none is taken, is a usage error", async () => {
    expect((await webhooks([])).code).toBe(2);
    expect((await webhooks(["enable"])).stderr).toMatch(/give exactly one endpoint id/);
    expect((await webhooks(["list", "whe_1"])).code).toBe(2);
  });
});
