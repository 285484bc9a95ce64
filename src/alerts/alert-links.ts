import { escapeMrkdwn, isLinkableUrl, mrkdwnLink, singleLine } from "../slack/slack-text.js";

/**
 * Which links an alert may carry. Everything about a person comes from the service and the
 * network, so a URL is untrusted: a profile link goes only to an `https://` profile page on the
 * network's own host (LinkedIn), a dashboard link only to an origin of the service (the
 * API's, or `alerts.dashboardUrl`'s). Anything else is shown as plain text.
 */

/** linkedin.com, www.linkedin.com or a country's (de.linkedin.com), as the WHATWG parser gives a host (lower case). */
const PROFILE_HOST = /^(?:www\.|[a-z]{2}\.)?linkedin\.com$/;
/** A public profile page: `/in/<slug>`, optionally with a trailing slash (percent-escapes as the parser leaves them). */
const PROFILE_PATH = /^\/in\/(?!\.+\/?$)[A-Za-z0-9%_.~-]+\/?$/;

/**
 * The link of a network profile, or undefined: the WHATWG parser's `href` of an `https://` URL on
 * linkedin.com (www or a country's subdomain), default port, no user part, whose path is
 * `/in/<slug>`. The parsed form is what gets linked, never the text as given: a text that parsers
 * read differently (`https://www.linkedin.com\@evil.example/in/x`) ends up with a path that is not
 * a profile's and is not linked, and neither is any other LinkedIn page (its redirector included).
 */
export function networkProfileHref(url: string | undefined): string | undefined {
  if (!url || !isLinkableUrl(url)) return undefined;
  const parsed = new URL(url);
  const profile =
    parsed.protocol === "https:" &&
    parsed.port === "" &&
    PROFILE_HOST.test(parsed.hostname) &&
    PROFILE_PATH.test(parsed.pathname);
  return profile ? parsed.href : undefined;
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

/** The label linked to the profile when the URL is a profile page of the network's (`networkProfileHref`), else the label as text. */
export function profileLink(url: string | undefined, label: string): string {
  const href = networkProfileHref(url);
  return href ? mrkdwnLink(href, label) : escapeMrkdwn(singleLine(label));
}

/**
 * The label linked to the dashboard when the URL is the service's. `origins` undefined (unit tests
 * of the formatting alone) accepts any linkable URL.
 */
export function dashboardLink(url: string | undefined, label: string, origins: readonly string[] | undefined): string {
  const ok = origins === undefined ? url !== undefined && isLinkableUrl(url) : isServiceUrl(url, origins);
  return ok ? mrkdwnLink(url, label) : escapeMrkdwn(singleLine(label));
}
