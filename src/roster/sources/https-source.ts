import { stat } from "node:fs/promises";
import { RosterPullError, RosterSourceAuthError } from "../../errors.js";
import { httpGet, pullOptions } from "./http-pull.js";
import { PulledSource } from "./pulled-source.js";
import type { PulledExport, RosterSource } from "./roster-source.js";
import type { SourceConfig } from "./source-secrets.js";

type HttpsConfig = Extract<SourceConfig, { type: "https" }>;

/** What is kept beside the last complete pull: its validators, and what it was a pull of. */
interface KeptPull {
  /** The URL the pull was of: validators of another report are not sent. */
  readonly url: string;
  /** The kept file's name in the store. */
  readonly name: string;
  /** The kept file's size and modification time once committed: another file in its place is not this pull. */
  readonly bytes: number;
  readonly mtimeMs: number;
  readonly etag?: string;
  readonly lastModified?: string;
}

const ACCEPT = "application/json, text/csv;q=0.9, */*;q=0.1";

/**
 * The pulled file's name: its extension tells the reader the format when it is not set
 * (`https.export`: by its first bytes).
 */
function fileName(format: HttpsConfig["format"], contentType: string | undefined): string {
  if (format === "json") return "https.json";
  if (format === "csv") return "https.csv";
  const type = contentType ?? "";
  if (/ndjson|jsonl|json-seq|jsonlines/i.test(type)) return "https.ndjson";
  if (/json/i.test(type)) return "https.json";
  if (/csv|text\/plain/i.test(type)) return "https.csv";
  return "https.export";
}

/** A name `fileName` gives (`https.json`...): what the facts kept beside a pull may name. */
function isKeptName(name: unknown): name is string {
  return typeof name === "string" && /^https\.(json|csv|ndjson|export)$/.test(name);
}

/** The origin and path of a report URL for reports and logs: no query string, no user info. */
export function shownUrl(text: string): string {
  const url = new URL(text);
  return `${url.origin}${url.pathname}`;
}

/** An ETag for a report line: without its quotes (`"abc"` reads as abc, `W/"abc"` as W/abc). */
function shownEtag(etag: string): string {
  return etag.replace(/"/g, "");
}

/**
 * A report fetched over HTTPS: a Workday RaaS custom report
 * (`/ccx/service/customreport2/<tenant>/<owner>/<report>?format=json`, Basic auth of an integration
 * system user) or any report URL (a Bearer token). `ETag` and `Last-Modified` from the last
 * complete pull of the same URL are sent back; a 304 is a complete pull of the same export: the
 * kept file, its modification time moved to now, is reconciled again like a fresh nightly file.
 */
export class HttpsSource extends PulledSource<HttpsConfig> implements RosterSource {
  readonly type = "https" as const;

  async pull(signal?: AbortSignal): Promise<PulledExport> {
    const options = pullOptions("https", this.http, this.config, signal);
    const headers = { accept: ACCEPT, ...this.auth() };
    const meta = await this.store.meta<Partial<KeptPull>>("https");
    const last = await this.kept(meta);
    const conditional: Record<string, string> = {};
    if (last?.etag) conditional["if-none-match"] = last.etag;
    if (last?.lastModified) conditional["if-modified-since"] = last.lastModified;
    const sent = Object.keys(conditional).length > 0;
    const temporary = await this.store.temporary("https");
    try {
      const answer = await httpGet(this.config.url, { ...headers, ...conditional }, { file: temporary }, options);
      const origin = shownUrl(answer.url);
      if (answer.status === 304) {
        await this.store.discard(temporary);
        if (!sent || last === undefined) {
          throw new RosterPullError(
            "https",
            `${origin} answered 304 Not Modified to a request that named no earlier pull; nothing was read`,
          );
        }
        return await this.again(last, origin);
      }
      return await this.keep(temporary, answer.headers, answer.bytes, origin, meta?.name);
    } catch (error) {
      await this.store.discard(temporary);
      throw error;
    }
  }

  /**
   * The last complete pull of this URL, when its file is still the one that pull wrote; else
   * undefined, and the report is asked for whole.
   */
  private async kept(last: Partial<KeptPull> | undefined): Promise<KeptPull | undefined> {
    if (last?.url !== this.config.url || !isKeptName(last.name)) return undefined;
    try {
      const info = await stat(this.store.path(last.name));
      if (info.size !== last.bytes || Math.trunc(info.mtimeMs) !== last.mtimeMs) return undefined;
    } catch {
      return undefined;
    }
    return last as KeptPull;
  }

  /** A 304: the kept file is this pull's export, as of now. */
  private async again(last: KeptPull, origin: string): Promise<PulledExport> {
    let mtimeMs: number;
    try {
      await this.store.touch(last.name, this.now());
      mtimeMs = await this.mtimeOf(last.name);
    } catch (error) {
      // Gone since it was checked (removed by hand, or by another pull's format change).
      throw new RosterPullError(
        "https",
        `${origin} answered 304 but the kept export is gone; the next run pulls it whole`,
        {
          cause: error,
        },
      );
    }
    await this.store.saveMeta("https", { ...last, mtimeMs } satisfies KeptPull);
    return this.pulled(this.store.path(last.name), origin, {
      notModified: true,
      bytes: last.bytes,
      ...(last.etag ? { etag: shownEtag(last.etag) } : {}),
    });
  }

  private async keep(
    temporary: string,
    headers: Readonly<Record<string, string | undefined>>,
    bytes: number,
    origin: string,
    previous: unknown,
  ): Promise<PulledExport> {
    const name = fileName(this.config.format, headers["content-type"]);
    const file = await this.store.commit(temporary, name, this.now());
    const kept: KeptPull = {
      url: this.config.url,
      name,
      bytes,
      mtimeMs: await this.mtimeOf(name),
      ...(headers.etag ? { etag: headers.etag } : {}),
      ...(headers["last-modified"] ? { lastModified: headers["last-modified"] } : {}),
    };
    await this.store.saveMeta("https", kept);
    // An export of another name (the format changed) is not left behind: it names people.
    if (isKeptName(previous) && previous !== name) {
      await this.store.discard(this.store.path(previous));
    }
    return this.pulled(file, origin, { bytes, ...(headers.etag ? { etag: shownEtag(headers.etag) } : {}) });
  }

  /** The kept file's modification time as `stat` reads it back (a time set in ms may read back a hair off). */
  private async mtimeOf(name: string): Promise<number> {
    return Math.trunc((await stat(this.store.path(name))).mtimeMs);
  }

  private pulled(file: string, origin: string, facts: Record<string, string | number | boolean>): PulledExport {
    return { file, format: this.config.format, origin, facts };
  }

  /** Bearer with a token (HRIS_TOKEN), else Basic with the user and HRIS_PASSWORD, else none. */
  private auth(): Record<string, string> {
    const url = new URL(this.config.url);
    if (url.username || url.password) {
      throw new RosterSourceAuthError(
        "https",
        `${shownUrl(this.config.url)}: the URL carries a user name or password; put the user in roster.source.username and the password in HRIS_PASSWORD`,
      );
    }
    if (this.secrets.token) return { authorization: `Bearer ${this.secrets.token}` };
    if (this.config.username && !this.secrets.password) {
      throw new RosterSourceAuthError(
        "https",
        `roster.source.username is ${this.config.username} and no password is set: put it in HRIS_PASSWORD (or a token in HRIS_TOKEN)`,
      );
    }
    if (!this.config.username && this.secrets.password) {
      throw new RosterSourceAuthError(
        "https",
        "HRIS_PASSWORD is set but roster.source.username is not: set the user the password is for (a Workday integration system user)",
      );
    }
    if (this.config.username && this.secrets.password) {
      const basic = Buffer.from(`${this.config.username}:${this.secrets.password}`).toString("base64");
      return { authorization: `Basic ${basic}` };
    }
    return {};
  }
}
