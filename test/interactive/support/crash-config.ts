import { type Config, configSchema } from "../../../src/config/schema.js";

/** The config of the crash test's processes: Socket Mode, one user allowed to stop tracking. */
export function crashWorldConfig(input: {
  botToken: string;
  appToken: string;
  slackUrl: string;
  allowed: string;
}): Config {
  return configSchema.parse({
    slack: {
      token: input.botToken,
      appToken: input.appToken,
      apiUrl: input.slackUrl,
      interactivity: { stopTracking: { allowedUsers: [input.allowed] } },
    },
  });
}
