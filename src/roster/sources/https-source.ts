import { type HttpPullOptions, httpGet } from "./http-pull.js";
import type { PullStore } from "./pull-store.js";
import type { PulledExport, RosterSource } from "./roster-source.js";
import type { SourceConfig, SourceSecrets } from "./source-secrets.js";

type HttpsConfig = Extract<SourceConfig, { type: "https" }>;

interface Validators {
  readonly etag?: string;
  readonly lastModified?: string;
  /** The URL the last pull was of: validators of another report are not sent. */
  readonly url: string;
}

/** The pulled file's name: its extension tells the reader the format when it is not set. */
function fileName(format: HttpsConfig["format"], contentType: string | undefined): string {
  if (format === "json") return "https.json";
  if (format === "csv") return "https.csv";
  return /json/i.test(contentType ?? "")
    ? "https.json"
    : /csv|text\/plain/i.test(contentType ?? "")
      ? "https.csv"
      : "https.export";
}

/** The origin and path of a report URL for reports and logs: no query string, no user info. */
export function shownUrl(text: string): string {
  const url = new URL(text);
  return `${url.origin}${url.pathname}`;
}

/**
 * A report fetched over HTTPS: a Workday RaaS custom report
 * (`/ccx/service/customreport2/<tenant>/<owner>/<report>?format=json`, Basic auth of an integration
 * system user) or any report URL. `ETag` and `Last-Modified` from the last complete pull are sent
 * back; a 304 is a complete pull of the same export.
 */
export class HttpsSource implements RosterSource {
  readonly type = "https" as const;

  constructor(
    private readonly config: HttpsConfig,
    private readonly secrets: SourceSecrets,
    private readonly store: PullStore,
    private readonly http: Omit<HttpPullOptions, "source" | "timeoutMs" | "maxBytes"> = {},
    private readonly now: () => Date = () => new Date(),
  ) {}

  async pull(signal?: AbortSignal): Promise<PulledExport> {
    const options: HttpPullOptions = {
      ...this.http,
      source: "https",
      timeoutMs: this.config.timeoutSeconds * 1000,
      maxBytes: this.config.maxBytes,
      signal,
    };
    const last = await this.store.meta<Validators & { name: string }>("https");
    const headers: Record<string, string> = { accept: "application/json, text/csv;q=0.9, */*;q=0.1", ...this.auth() };
    if (last?.url === this.config.url) {
      if (last.etag) headers["if-none-match"] = last.etag;
      if (last.lastModified) headers["if-modified-since"] = last.lastModified;
    }
    const temporary = await this.store.temporary("https");
    try {
      const answer = await httpGet(this.config.url, headers, { file: temporary }, options);
      const origin = shownUrl(answer.url);
      if (answer.status === 304 && last !== undefined) {
        await this.store.discard(temporary);
        await this.store.touch(last.name, this.now());
        return this.pulled(this.store.path(last.name), origin, { notModified: true, etag: last.etag ?? "" });
      }
      if (answer.status === 304) {
        // A 304 with nothing kept to stand for: ask again without the validators.
        await this.store.discard(temporary);
        return await this.pullWhole(options, origin);
      }
      return await this.keep(temporary, answer.headers, answer.bytes, origin);
    } catch (error) {
      await this.store.discard(temporary);
      throw error;
    }
  }

  private async pullWhole(options: HttpPullOptions, origin: string): Promise<PulledExport> {
    const temporary = await this.store.temporary("https");
    try {
      const answer = await httpGet(this.config.url, this.auth(), { file: temporary }, options);
      return await this.keep(temporary, answer.headers, answer.bytes, origin);
    } catch (error) {
      await this.store.discard(temporary);
      throw error;
    }
  }

  private async keep(
    temporary: string,
    headers: Readonly<Record<string, string | undefined>>,
    bytes: number,
    origin: string,
  ): Promise<PulledExport> {
    const name = fileName(this.config.format, headers["content-type"]);
    const file = await this.store.commit(temporary, name, this.now());
    const validators: Validators & { name: string } = {
      url: this.config.url,
      name,
      ...(headers.etag ? { etag: headers.etag } : {}),
      ...(headers["last-modified"] ? { lastModified: headers["last-modified"] } : {}),
    };
    await this.store.saveMeta("https", validators);
    return this.pulled(file, origin, { bytes, ...(headers.etag ? { etag: headers.etag } : {}) });
  }

  private pulled(file: string, origin: string, facts: Record<string, string | number | boolean>): PulledExport {
    return { file, format: this.config.format, origin, facts };
  }

  /** Bearer with a token (HRIS_TOKEN), else Basic with the user and HRIS_PASSWORD. */
  private auth(): Record<string, string> {
    if (this.secrets.token) return { authorization: `Bearer ${this.secrets.token}` };
    if (this.config.username && this.secrets.password) {
      const basic = Buffer.from(`${this.config.username}:${this.secrets.password}`).toString("base64");
      return { authorization: `Basic ${basic}` };
    }
    return {};
  }
}
