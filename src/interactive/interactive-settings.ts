import type { Config } from "../config/schema.js";
import { ConfigError } from "../errors.js";
import type { AccessPolicy } from "./authorize.js";

export type InteractivityMode = "socket" | "http" | "off";

export interface InteractivitySettings {
  readonly mode: InteractivityMode;
  readonly appToken?: string | undefined;
  readonly signingSecret?: string | undefined;
  /** HTTP mode: the ops server path. */
  readonly path: string;
  readonly policy: AccessPolicy;
}

const KEY = "slack.interactivity";

/** `slack.interactivity.mode`, or its default: Socket Mode with an app token, else off. */
export function interactivityMode(config: Pick<Config, "slack">): InteractivityMode {
  return config.slack.interactivity.mode ?? (config.slack.appToken ? "socket" : "off");
}

/**
 * Whether alerts carry buttons: only when something answers them (an app token for Socket Mode,
 * or the HTTP mode with its signing secret) and a bot token posts them. Buttons nobody answers
 * would be broken.
 */
export function buttonsEnabled(config: Pick<Config, "slack">): boolean {
  const mode = interactivityMode(config);
  if (!config.slack.token) return false;
  if (mode === "socket") return config.slack.appToken !== undefined;
  if (mode === "http") return config.slack.interactivity.signingSecret !== undefined;
  return false;
}

/** The settings the daemon runs with; a mode without its secret is a ConfigError naming the variable. */
export function interactivitySettings(config: Pick<Config, "slack">): InteractivitySettings {
  const mode = interactivityMode(config);
  const { interactivity, appToken } = config.slack;
  if (mode === "socket" && !appToken) {
    throw new ConfigError("slack.interactivity", [
      {
        path: `${KEY}.mode`,
        message: "socket needs SLACK_APP_TOKEN (an xapp- app-level token with connections:write)",
      },
    ]);
  }
  if (mode === "http" && !interactivity.signingSecret) {
    throw new ConfigError("slack.interactivity", [
      { path: `${KEY}.signingSecret`, message: "http needs SLACK_SIGNING_SECRET (the app's signing secret)" },
    ]);
  }
  const rule = (name: "acknowledge" | "snooze" | "stopTracking" | "approveReconcile", openWhenUnset: boolean) => ({
    allowedUsers: interactivity[name].allowedUsers,
    allowedUsergroups: interactivity[name].allowedUsergroups,
    openWhenUnset,
    configKey: `${KEY}.${name}`,
  });
  return {
    mode,
    appToken,
    signingSecret: interactivity.signingSecret,
    path: interactivity.path,
    policy: {
      acknowledge: rule("acknowledge", true),
      snooze: rule("snooze", true),
      stopTracking: rule("stopTracking", false),
      approveReconcile: rule("approveReconcile", false),
    },
  };
}
