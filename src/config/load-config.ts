import { readFileSync } from "node:fs";
import { isMap, LineCounter, parseDocument } from "yaml";
import { ConfigError, type ConfigIssue } from "../errors.js";
import { describeIssues, type PathSegment } from "./describe-issues.js";
import { CONFIG_FILE_ENV, ENV_OVERRIDES } from "./env-overrides.js";
import { type Config, configSchema } from "./schema.js";

export interface LoadConfigOptions {
  /** Explicit config file (`--config`); else RETENTION_SYNC_CONFIG; else no file at all. */
  readonly file?: string | undefined;
  readonly env: NodeJS.ProcessEnv;
}

interface ParsedFile {
  readonly data: Record<string, unknown>;
  readonly locate: (path: readonly PathSegment[]) => string | undefined;
}

type Plain = Record<string, unknown>;
const isPlain = (value: unknown): value is Plain =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Reads and parses the YAML file; syntax errors name the file, line and column. */
function readConfigFile(file: string): ParsedFile {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "file not found" : String(error);
    throw new ConfigError(`config file ${file}`, [{ path: file, message: `cannot read the config file: ${reason}` }], {
      cause: error,
    });
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const issues = doc.errors.map((e) => {
      const pos = lineCounter.linePos(e.pos[0]);
      return {
        path: `${file}:${pos.line}:${pos.col}`,
        message: `YAML syntax error: ${e.message.split("\n")[0] ?? e.code}`,
      };
    });
    throw new ConfigError(`config file ${file}`, issues);
  }
  const data: unknown = doc.toJS() ?? {};
  if (!isPlain(data)) {
    throw new ConfigError(`config file ${file}`, [
      { path: file, message: "expected a YAML mapping of options (api:, slack:, ...) at the top level" },
    ]);
  }
  const locate = (path: readonly PathSegment[]): string | undefined => {
    // Unknown keys and bad values both sit on the line of their key.
    const parent = path.length > 0 ? doc.getIn(path.slice(0, -1), true) : doc.contents;
    const last = path[path.length - 1];
    const pair = isMap(parent)
      ? parent.items.find((item) => (item.key as { value?: unknown })?.value === last)
      : undefined;
    const node = (pair?.key ?? doc.getIn(path, true)) as { range?: [number, number, number] } | undefined;
    if (!node?.range) return undefined;
    const pos = lineCounter.linePos(node.range[0]);
    return `${file}:${pos.line}:${pos.col}`;
  };
  return { data, locate };
}

/** Sets a dotted path in a plain object, creating parents; leaves non-object parents for the schema to report. */
function setPath(target: Plain, dotted: string, value: unknown): void {
  const parts = dotted.split(".");
  let node: Plain = target;
  for (const part of parts.slice(0, -1)) {
    const child = node[part];
    if (child === undefined || child === null) node[part] = {};
    else if (!isPlain(child)) return;
    node = node[part] as Plain;
  }
  node[parts[parts.length - 1] ?? ""] = value;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * The one typed, frozen Config: file (optional) + environment overrides, validated with the
 * schema. Every problem is reported at once in a ConfigError (exit code 2).
 */
export function loadConfig(options: LoadConfigOptions): Config {
  const envFile = options.env[CONFIG_FILE_ENV];
  const file = options.file ?? (envFile && envFile.trim().length > 0 ? envFile.trim() : undefined);
  const parsed: ParsedFile = file ? readConfigFile(file) : { data: {}, locate: () => undefined };
  const input: Plain = structuredClone(parsed.data);

  const envOrigins = new Map<string, string>();
  for (const override of ENV_OVERRIDES) {
    const raw = options.env[override.env];
    if (raw === undefined || raw.trim().length === 0) continue;
    const path = override.pathFor?.(raw) ?? override.path;
    setPath(input, path, override.parse(raw));
    envOrigins.set(path, override.env);
  }

  const result = configSchema.safeParse(input);
  const source = file ? `config file ${file} and environment` : "environment, no config file";
  if (!result.success) {
    const issues: ConfigIssue[] = describeIssues(result.error.issues, {
      schema: configSchema,
      input,
      envOrigins,
      locate: parsed.locate,
    });
    throw new ConfigError(source, issues);
  }
  return deepFreeze(result.data);
}
