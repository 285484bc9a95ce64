import type { Config } from "../../config/schema.js";

/** The environment variables that carry a pull source's secrets (preferred to the config file). */
export const SOURCE_SECRET_ENV = [
  "HRIS_PASSWORD",
  "HRIS_TOKEN",
  "BAMBOOHR_API_KEY",
  "MERGE_API_KEY",
  "MERGE_ACCOUNT_TOKEN",
  "SFTP_PASSWORD",
] as const;

export type SourceConfig = Config["roster"]["source"];

export interface SourceSecrets {
  readonly password?: string;
  readonly token?: string;
  readonly apiKey?: string;
  readonly accountToken?: string;
}

function pick(...values: Array<string | undefined>): string | undefined {
  return values.map((v) => v?.trim()).find((v): v is string => v !== undefined && v.length > 0);
}

/** A source's secrets: the environment variable named for it, else the config file's value. */
export function sourceSecrets(source: SourceConfig, env: NodeJS.ProcessEnv): SourceSecrets {
  switch (source.type) {
    case "https": {
      const password = pick(env.HRIS_PASSWORD, source.password);
      const token = pick(env.HRIS_TOKEN, source.token);
      return { ...(password ? { password } : {}), ...(token ? { token } : {}) };
    }
    case "bamboohr": {
      const apiKey = pick(env.BAMBOOHR_API_KEY, source.apiKey);
      return apiKey ? { apiKey } : {};
    }
    case "merge": {
      const apiKey = pick(env.MERGE_API_KEY, source.apiKey);
      const accountToken = pick(env.MERGE_ACCOUNT_TOKEN, source.accountToken);
      return { ...(apiKey ? { apiKey } : {}), ...(accountToken ? { accountToken } : {}) };
    }
    case "sftp": {
      const password = pick(env.SFTP_PASSWORD, source.password);
      return password ? { password } : {};
    }
    default:
      return {};
  }
}

/** Every secret value a source may use, for the logger's scrubber. */
export function sourceSecretValues(source: SourceConfig, env: NodeJS.ProcessEnv): string[] {
  return Object.values(sourceSecrets(source, env)).filter((v): v is string => typeof v === "string");
}
