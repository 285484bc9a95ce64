import { escapeMrkdwn, isLinkableUrl, mrkdwnLink, singleLine } from "../slack/slack-text.js";

/**
 * Which links an alert may carry. Everything about a person comes from the service and the
 * network, so a URL is untrusted: a profile link goes only to an `https://` page on the network's
 * own host (DESIGN.md: LinkedIn), a dashboard link only to an origin of the service (the API's,
 * or `alerts.dashboardUrl`'s). Anything else is shown as plain text.
 */

/** An `https://` URL on linkedin.com or one of its subdomains, default port, no user part. */
export function isNetworkProfileUrl(url: string | undefined): url is string {
  if (!url || !isLinkableUrl(url)) return false;
  const parsed = new URL(url);
  const host = parsed.hostname.toLowerCase();
  return (
    parsed.protocol === "https:" && parsed.port === "" && (host === "linkedin.com" || host.endsWith(".linkedin.com"))
  );
}

/** A URL whose origin is one of `origins` (an empty list allows none). */
export function isServiceUrl(url: string | undefined, origins: readonly string[]): url is string {
  if (!url || !isLinkableUrl(url)) return false;
  return origins.includes(new URL(url).origin);
}

/** The origin of a configured URL, or undefined. */
export function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** The label linked to the profile when the URL is the network's, else the label as text. */
export function profileLink(url: string | undefined, label: string): string {
  return isNetworkProfileUrl(url) ? mrkdwnLink(url, label) : escapeMrkdwn(singleLine(label));
}

/**
 * The label linked to the dashboard when the URL is the service's. `origins` undefined (unit tests
 * of the formatting alone) accepts any linkable URL.
 */
export function dashboardLink(url: string | undefined, label: string, origins: readonly string[] | undefined): string {
  const ok = origins === undefined ? url !== undefined && isLinkableUrl(url) : isServiceUrl(url, origins);
  return ok ? mrkdwnLink(url, label) : escapeMrkdwn(singleLine(label));
}
