import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * The folder where complete pulls are kept (beside the state database, owner-only): one file per
 * source, replaced only by the next complete pull. A pull is written to a temporary name, created
 * exclusively and owner-only, and renamed over the last one only once it is whole, so a cut pull
 * never replaces a good export and nothing half-written is ever read.
 */
export class PullStore {
  constructor(private readonly dir: string) {}

  /** The last complete pull of `name` (e.g. `bamboohr.json`), if any. */
  path(name: string): string {
    return join(this.dir, name);
  }

  /** A fresh temporary path beside `name`, for one pull in progress. */
  async temporary(name: string): Promise<string> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const path = join(this.dir, `.${name}.${randomBytes(6).toString("hex")}.part`);
    await writeFile(path, "", { flag: "wx", mode: 0o600 });
    return path;
  }

  /** Makes a whole pull the current one; its modification time is when it completed (or the remote file's). */
  async commit(temporary: string, name: string, modifiedAt: Date): Promise<string> {
    await utimes(temporary, modifiedAt, modifiedAt);
    const target = this.path(name);
    await rename(temporary, target);
    return target;
  }

  /** Marks the last pull as pulled again (a 304: the same content, a new export). */
  async touch(name: string, at: Date): Promise<void> {
    await utimes(this.path(name), at, at);
  }

  async discard(temporary: string): Promise<void> {
    await rm(temporary, { force: true });
  }

  /** Small facts kept beside a pull (an ETag, a Last-Modified), or undefined. */
  async meta<T>(name: string): Promise<T | undefined> {
    try {
      return JSON.parse(await readFile(this.path(`${name}.meta.json`), "utf8")) as T;
    } catch {
      return undefined;
    }
  }

  async saveMeta(name: string, value: unknown): Promise<void> {
    const temporary = await this.temporary(`${name}.meta.json`);
    await writeFile(temporary, JSON.stringify(value), { mode: 0o600 });
    await rename(temporary, this.path(`${name}.meta.json`));
  }
}
