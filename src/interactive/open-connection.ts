import { WebClient } from "@slack/web-api";

/**
 * apps.connections.open with the app-level token, for `check`: proves the token and Socket Mode
 * work without keeping a socket (the URL's ticket is simply not used). Errors are the SDK's.
 */
export async function tryOpenSocketConnection(appToken: string, apiUrl: string): Promise<void> {
  const client = new WebClient(undefined, {
    slackApiUrl: apiUrl.endsWith("/") ? apiUrl : `${apiUrl}/`,
    headers: { Authorization: `Bearer ${appToken}` },
    retryConfig: { retries: 1, minTimeout: 200, maxTimeout: 1_000 },
    timeout: 10_000,
  });
  const result = await client.apps.connections.open({});
  if (!result.url) throw new Error("apps.connections.open answered without a URL");
}
