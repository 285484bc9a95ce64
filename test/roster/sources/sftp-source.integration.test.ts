import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { utils } from "ssh2";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rosterSourceSchema } from "../../../src/config/schema.js";
import { RosterPullError, RosterSourceAuthError } from "../../../src/errors.js";
import { rosterSource } from "../../../src/roster/sources/open-source.js";
import { PullStore } from "../../../src/roster/sources/pull-store.js";
import { globPattern, type SftpSettleOptions, SftpSource } from "../../../src/roster/sources/sftp-source.js";
import { sourceSecrets } from "../../../src/roster/sources/source-secrets.js";
import { newKeyPair, type SftpFake, startSftpFake } from "../../helpers/fakes/sftp-fake.js";

const CSV = "LinkedIn URL,Full Name\nhttps://www.linkedin.com/in/ada,Ada\n";
const PASSWORD = "sftp-fake-password-0123";

let fake: SftpFake;
let dir: string;
let sleeps: number[];

beforeEach(async () => {
  fake = await startSftpFake({ password: PASSWORD });
  dir = await mkdtemp(join(tmpdir(), "rs-sftp-"));
  sleeps = [];
});
afterEach(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

async function keyFile(key = fake.clientPrivateKey): Promise<string> {
  const file = join(dir, `key-${Math.random().toString(16).slice(2)}`);
  await writeFile(file, key, { mode: 0o600 });
  return file;
}

type SourceInput = Partial<Record<string, unknown>>;

async function config(overrides: SourceInput = {}) {
  return rosterSourceSchema.parse({
    type: "sftp",
    host: "127.0.0.1",
    port: fake.port,
    username: fake.username,
    privateKeyFile: await keyFile(),
    hostKey: fake.hostKey,
    path: "/exports/workers-*.csv",
    ...overrides,
  }) as Extract<ReturnType<typeof rosterSourceSchema.parse>, { type: "sftp" }>;
}

/** The source with instant waits (each recorded) and the given settle options. */
async function source(overrides: SourceInput = {}, env: NodeJS.ProcessEnv = {}, settle: SftpSettleOptions = {}) {
  const parsed = await config(overrides);
  return new SftpSource(
    parsed,
    sourceSecrets(parsed, env),
    new PullStore(join(dir, "pulls")),
    {
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    },
    () => new Date(),
    settle,
  );
}

async function failure(promise: Promise<unknown>): Promise<RosterPullError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RosterPullError);
  return error as RosterPullError;
}

async function pulledFiles(): Promise<string[]> {
  return (await readdir(join(dir, "pulls")).catch(() => [] as string[])).filter((f) => !f.endsWith(".meta.json"));
}

const DAY = 86_400_000;

describe("sftp source: the newest whole file", () => {
  it("pulls the newest matching file by modification time, with its remote mtime, owner-only", async () => {
    const now = Date.now();
    fake.put("/exports/workers-2024-06-01.csv", "old\n", { mtime: new Date(now - 2 * DAY) });
    fake.put("/exports/workers-2024-06-02.csv", CSV, { mtime: new Date(now - DAY) });
    fake.put("/exports/payroll-2024-06-03.csv", "not this\n", { mtime: new Date(now) });
    fake.put("/exports/archive/workers-2024-06-09.csv", "in a subfolder\n", { mtime: new Date(now) });
    const pulled = await (await source()).pull();
    expect(await readFile(pulled.file, "utf8")).toBe(CSV);
    expect(pulled.origin).toBe(`sftp://127.0.0.1:${fake.port}/exports/workers-2024-06-02.csv`);
    const remoteMtime = Math.floor((now - DAY) / 1000) * 1000;
    expect(pulled.facts).toEqual({
      file: "workers-2024-06-02.csv",
      bytes: Buffer.byteLength(CSV),
      modifiedAt: new Date(remoteMtime).toISOString(),
    });
    const local = await stat(pulled.file);
    expect(local.mtimeMs).toBe(remoteMtime);
    expect(local.mode & 0o777).toBe(0o600);
    expect(pulled.file.endsWith(".csv")).toBe(true);
    // Key authentication: the key was offered, then signed for.
    expect(fake.auth).toEqual(["none refused", "publickey pk-ok", "publickey accepted"]);
    // Two looks a pause apart agreed before the one download.
    expect(fake.requests.filter((r) => r.startsWith("STAT ")).length).toBeGreaterThanOrEqual(2);
    expect(fake.requests.filter((r) => r.startsWith("READ "))).toEqual(["READ /exports/workers-2024-06-02.csv"]);
    expect(sleeps).toEqual([5_000]);
  });

  it("logs in with SFTP_PASSWORD from the environment through the factory, and over keyboard-interactive", async () => {
    fake.put("/exports/workers-1.csv", CSV);
    const parsed = await config({ privateKeyFile: undefined, doneMarker: ".done" });
    fake.put("/exports/workers-1.csv.done", "");
    const made = rosterSource(parsed, { env: { SFTP_PASSWORD: PASSWORD }, pullDir: join(dir, "pulls") });
    const pulled = await made?.pull();
    expect(await readFile(pulled?.file ?? "", "utf8")).toBe(CSV);
    expect(fake.auth).toEqual(["none refused", "password accepted"]);

    const interactive = await startSftpFake({ password: PASSWORD, passwordVia: "keyboard-interactive" });
    try {
      interactive.put("/exports/workers-1.csv", CSV);
      interactive.put("/exports/workers-1.csv.done", "");
      const viaPrompt = rosterSource(
        { ...parsed, port: interactive.port, hostKey: interactive.hostKey },
        { env: { SFTP_PASSWORD: PASSWORD }, pullDir: join(dir, "pulls-2") },
      );
      expect(await readFile((await viaPrompt?.pull())?.file ?? "", "utf8")).toBe(CSV);
      expect(interactive.auth).toContain("keyboard-interactive accepted");
    } finally {
      await interactive.close();
    }
  });

  it("with both a key and SFTP_PASSWORD, the key is offered first and the password is not sent", async () => {
    fake.put("/exports/workers-1.csv", CSV);
    fake.put("/exports/workers-1.csv.done", "");
    await (await source({ doneMarker: ".done" }, { SFTP_PASSWORD: PASSWORD })).pull();
    expect(fake.auth.filter((a) => a.startsWith("password"))).toEqual([]);
    expect(fake.auth).toContain("publickey accepted");
  });

  it("with a doneMarker reads a file only once its marker exists, and never takes a marker for an export", async () => {
    const now = Date.now();
    fake.put("/exports/workers-1.csv", CSV, { mtime: new Date(now - 60_000) });
    // Newer, and matching workers-*: the marker itself is not a candidate.
    fake.put("/exports/workers-1.csv.done", "", { mtime: new Date(now) });
    const pulled = await (await source({ path: "/exports/workers-*", doneMarker: ".done" })).pull();
    expect(pulled.facts).toMatchObject({ file: "workers-1.csv", doneMarker: "workers-1.csv.done" });
    expect(sleeps).toEqual([]); // the marker says the file is whole: no pause

    fake.put("/exports/workers-2.csv", "half of a fi", { mtime: new Date(now + 1000) });
    const error = await failure((await source({ path: "/exports/workers-*", doneMarker: ".done" })).pull());
    expect(error).not.toBeInstanceOf(RosterSourceAuthError);
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(/\/exports\/workers-2\.csv \(12 bytes, .*\) has no workers-2\.csv\.done yet/);
    expect(fake.requests).not.toContain("OPEN /exports/workers-2.csv");
  });

  it("a second pull of the same remote file is neither waited for nor downloaded again (not modified)", async () => {
    fake.put("/exports/workers-1.csv", CSV, { mtime: new Date(Date.now() - DAY) });
    const first = await (await source()).pull();
    sleeps = [];
    const second = await (await source()).pull();
    expect(sleeps).toEqual([]); // the file of the last complete pull, unchanged: no pause either
    expect(second.file).toBe(first.file);
    expect(second.facts).toMatchObject({ file: "workers-1.csv", notModified: true });
    expect(fake.requests.filter((r) => r.startsWith("READ "))).toHaveLength(1);
  });

  it("a stale file is pulled with its old modification time (roster.staleAfter then warns)", async () => {
    const old = new Date(Date.now() - 10 * DAY);
    fake.put("/exports/workers-1.csv", CSV, { mtime: old });
    const pulled = await (await source()).pull();
    expect((await stat(pulled.file)).mtimeMs).toBe(Math.floor(old.getTime() / 1000) * 1000);
  });

  it("a file that held still after changing once is read once it settles", async () => {
    fake.put("/exports/workers-1.csv", "LinkedIn URL,Full Name\n", {
      growsBy: "https://www.linkedin.com/in/x,X\n",
      growths: 2,
    });
    const pulled = await (await source()).pull();
    expect(await readFile(pulled.file, "utf8")).toBe(
      "LinkedIn URL,Full Name\nhttps://www.linkedin.com/in/x,X\nhttps://www.linkedin.com/in/x,X\n",
    );
    expect(sleeps).toEqual([5_000, 5_000]);
  });

  it("the file name pattern: * and ? only, everything else as written", () => {
    expect(globPattern("workers-*.csv").test("workers-2024.csv")).toBe(true);
    expect(globPattern("workers-*.csv").test("workers-2024.csvx")).toBe(false);
    expect(globPattern("workers-?.csv").test("workers-12.csv")).toBe(false);
    expect(globPattern("w(1)+[a].csv").test("w(1)+[a].csv")).toBe(true);
  });
});

describe("sftp source: what is refused", () => {
  it("a wrong host key: RosterSourceAuthError (exit 2), and no credential is sent", async () => {
    fake.put("/exports/workers-1.csv", CSV);
    const other = newKeyPair();
    const error = await failure((await source({ hostKey: other.fingerprint })).pull());
    expect(error).toBeInstanceOf(RosterSourceAuthError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(/presented an ssh-ed25519 host key whose fingerprint is not roster.source.hostKey/);
    expect(fake.auth).toEqual([]);
    expect(fake.connections()).toBe(1); // not tried again: the operator must act
  });

  it("a refused password or key: RosterSourceAuthError (exit 2), tried once", async () => {
    fake.put("/exports/workers-1.csv", CSV);
    const password = await failure(
      (await source({ privateKeyFile: undefined }, { SFTP_PASSWORD: "not-the-password" })).pull(),
    );
    expect(password).toBeInstanceOf(RosterSourceAuthError);
    expect(password.exitCode).toBe(2);
    expect(password.message).toMatch(/refused retention's password/);
    expect(password.message).not.toContain("not-the-password");

    const key = await failure((await source({ privateKeyFile: await keyFile(newKeyPair().privateKey) })).pull());
    expect(key).toBeInstanceOf(RosterSourceAuthError);
    expect(key.message).toMatch(/refused retention's key/);
    expect(fake.connections()).toBe(2);
    expect(await pulledFiles()).toEqual([]);
  });

  it("no credential, or a key file that cannot be read: exit 2 before connecting", async () => {
    const none = await failure((await source({ privateKeyFile: undefined })).pull());
    expect(none).toBeInstanceOf(RosterSourceAuthError);
    expect(none.message).toMatch(/no credential/);
    const missing = await failure((await source({ privateKeyFile: join(dir, "absent") })).pull());
    expect(missing).toBeInstanceOf(RosterSourceAuthError);
    expect(missing.message).toMatch(/privateKeyFile .*absent cannot be read \(ENOENT\)/);
    const locked = utils.generateKeyPairSync("ed25519", {
      passphrase: "a-passphrase-123",
      cipher: "aes256-cbc",
      rounds: 16,
    });
    const encrypted = await failure((await source({ privateKeyFile: await keyFile(locked.private) })).pull());
    expect(encrypted).toBeInstanceOf(RosterSourceAuthError);
    expect(encrypted.message).toMatch(/cannot be used .*use an unencrypted OpenSSH or PEM key/);
    expect(fake.connections()).toBe(0);
  });

  it("no matching file: RosterPullError (exit 1) naming what was found", async () => {
    fake.put("/exports/payroll.csv", "x\n");
    fake.put("/exports/readme.txt", "x\n");
    const error = await failure((await source()).pull());
    expect(error).not.toBeInstanceOf(RosterSourceAuthError);
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain(
      `no file in sftp://127.0.0.1:${fake.port}/exports matches workers-*.csv: found 2 files: payroll.csv, readme.txt`,
    );
    const missing = await failure((await source({ path: "/nowhere/workers-*.csv" })).pull());
    expect(missing.message).toMatch(/\/nowhere: no such folder on the server/);
    fake.forbid("/secret");
    const forbidden = await failure((await source({ path: "/secret/workers-*.csv" })).pull());
    expect(forbidden).toBeInstanceOf(RosterSourceAuthError);
    expect(forbidden.message).toMatch(/retention may not list \/secret/);
  });

  it("a half-written file (its size changing between looks): RosterPullError, nothing read or kept", async () => {
    fake.put("/exports/workers-1.csv", "LinkedIn URL,Full Name\n", { growsBy: "https://www.linkedin.com/in/x,X\n" });
    const error = await failure((await source({}, {}, { settleLooks: 3 })).pull());
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(/\/exports\/workers-1\.csv kept changing over 4 looks 5 s apart/);
    expect(error.message).toMatch(/still being written/);
    expect(sleeps).toEqual([5_000, 5_000, 5_000]);
    expect(fake.requests.filter((r) => r.startsWith("OPEN "))).toEqual([]);
    expect(await pulledFiles()).toEqual([]);
  });

  it("a transfer cut every time: RosterPullError after the run's tries, the last good pull kept", async () => {
    const good = `${CSV}https://www.linkedin.com/in/bo,Bo\n`;
    fake.put("/exports/workers-1.csv", good, { mtime: new Date(Date.now() - DAY) });
    const first = await (await source({ doneMarker: undefined })).pull();
    sleeps = [];
    const big = `LinkedIn URL,Full Name\n${"https://www.linkedin.com/in/someone,Someone\n".repeat(3000)}`;
    fake.put("/exports/workers-2.csv", big, { cutAfter: 40_000 });
    const error = await failure((await source()).pull());
    expect(error).not.toBeInstanceOf(RosterSourceAuthError);
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(
      /the connection closed after 40000 bytes of \/exports\/workers-2\.csv \(3 tries\); the next schedule tries again/,
    );
    // Backoff between the tries, and the settle pause of each try.
    expect(sleeps.filter((ms) => ms !== 5_000)).toEqual([1_000, 2_000]);
    expect(fake.requests.filter((r) => r === "READ /exports/workers-2.csv")).toHaveLength(3);
    // Nothing half-written is left, and the last complete pull is untouched.
    expect(await pulledFiles()).toEqual(["sftp.csv"]);
    expect(await readFile(first.file, "utf8")).toBe(good);
  });

  it("a transfer cut once is tried again within the run", async () => {
    const big = `LinkedIn URL,Full Name\n${"https://www.linkedin.com/in/someone,Someone\n".repeat(3000)}`;
    fake.put("/exports/workers-1.csv", big, { cutAfter: 40_000, cuts: 1 });
    const pulled = await (await source()).pull();
    expect(await readFile(pulled.file, "utf8")).toBe(big);
    expect(sleeps.filter((ms) => ms !== 5_000)).toEqual([1_000]);
  });

  it("a server that stops answering mid-download: the timeout cuts it (exit 1)", async () => {
    const big = `LinkedIn URL,Full Name\n${"https://www.linkedin.com/in/someone,Someone\n".repeat(3000)}`;
    fake.put("/exports/workers-1.csv", big, { stallAfter: 1 });
    // Long enough for the SSH handshake on a loaded machine (the timeout covers it too), so that
    // what is cut is the stalled transfer.
    const parsed = await config({ timeoutSeconds: 2 });
    const stalled = new SftpSource(parsed, {}, new PullStore(join(dir, "pulls")), {
      attempts: 1,
      sleep: async () => {},
    });
    const error = await failure(stalled.pull());
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(/no data for 2 s after \d+ bytes/);
    expect(await pulledFiles()).toEqual([]);
  });

  it("a file larger than maxBytes, or empty, is not read", async () => {
    fake.put("/exports/workers-1.csv", "x".repeat(2048));
    const large = await failure((await source({ maxBytes: 1024 })).pull());
    expect(large.message).toMatch(/2048 bytes, more than roster.source.maxBytes \(1024\); nothing was read/);
    fake.put("/exports/workers-2.csv", "", { mtime: new Date(Date.now() + 1000) });
    const empty = await failure((await source()).pull());
    expect(empty.message).toMatch(/workers-2\.csv is empty \(0 bytes/);
    expect(fake.requests.filter((r) => r.startsWith("OPEN "))).toEqual([]);
  });

  it("a stop (shutdown) during the pause ends the pull without reading", async () => {
    fake.put("/exports/workers-1.csv", CSV);
    const controller = new AbortController();
    const parsed = await config();
    const stopping = new SftpSource(parsed, {}, new PullStore(join(dir, "pulls")), {
      sleep: async () => controller.abort(),
    });
    const error = await failure(stopping.pull(controller.signal));
    expect(error.message).toMatch(/stopped/);
    expect(fake.requests.filter((r) => r.startsWith("OPEN "))).toEqual([]);
  });
});

describe("sftp source: the host key fingerprint", () => {
  const execFileAsync = promisify(execFile);
  const haveOpenSsh = async () =>
    execFileAsync("ssh-keyscan", ["-h"]).then(
      () => true,
      (e: { code?: unknown }) => e.code !== "ENOENT",
    );

  it("is the one ssh-keyscan | ssh-keygen -l prints for the server", async (context) => {
    if (!(await haveOpenSsh())) context.skip();
    const { stdout: scanned } = await execFileAsync("ssh-keyscan", [
      "-p",
      String(fake.port),
      "-t",
      "ed25519",
      "127.0.0.1",
    ]);
    const keys = join(dir, "scanned");
    await writeFile(keys, scanned);
    const { stdout } = await execFileAsync("ssh-keygen", ["-l", "-f", keys]);
    expect(stdout).toContain(fake.hostKey);
    // And a source configured with that line's fingerprint connects.
    const printed = /SHA256:[A-Za-z0-9+/]+/.exec(stdout)?.[0];
    fake.put("/exports/workers-1.csv", CSV);
    const pulled = await (await source({ hostKey: printed })).pull();
    expect(pulled.facts).toMatchObject({ file: "workers-1.csv" });
  });
});
