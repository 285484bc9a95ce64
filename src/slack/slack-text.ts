/**
 * Text helpers for Slack messages. Everything that comes from the service or the HRIS file is
 * untrusted: it must not break the markup, ping a whole channel, or exceed Slack's limits.
 */

/** Slack's limit on one text object in a block (section text, context element). */
export const MAX_TEXT = 3000;
/** Slack's limit on one section field. */
export const MAX_FIELD = 2000;
/** Slack's limit on a header block's plain text. */
export const MAX_HEADER = 150;
/** Slack's limit on blocks per message. */
export const MAX_BLOCKS = 50;
/** Kept well under Slack's 40,000-character limit on the fallback `text`: it is a notification line. */
export const MAX_FALLBACK = 3000;

const WORD_JOINER = "\u2060";
/** Bidi embeddings, overrides and isolates (U+202A-202E, U+2066-2069), marks (U+200E, U+200F, U+061C). */
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;
/** Zero-width and invisible joiners, soft hyphen, BOM. */
const INVISIBLE = /[\u200b-\u200d\u2060-\u2064\ufeff\u180e\u00ad]/g;
/** Line and paragraph breaks of any kind, tabs. */
const BREAKS = /[\r\n\t\v\f\u0085\u2028\u2029]+/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/**
 * Untrusted text meant for one line (a name, a title, a department): line breaks become spaces,
 * and bidi controls and invisible characters go, so a value can neither fake extra lines (in a
 * digest) nor reorder what follows it on screen. Apply before the escaping helpers below.
 */
export function singleLine(text: string): string {
  return text
    .replace(BIDI, "")
    .replace(INVISIBLE, "")
    .replace(BREAKS, " ")
    .replace(CONTROL, "")
    .replace(/ {2,}/g, " ")
    .trim();
}

/** Breaks `@channel`, `@here`, `@everyone` and `@user` so Slack cannot turn them into mentions. */
export function neutraliseMentions(text: string): string {
  return text.replace(/@(?=[\p{L}\p{N}_.-])/gu, `@${WORD_JOINER}`);
}

/** Escapes Slack's control characters and neutralises mentions, for untrusted text inside mrkdwn. */
export function escapeMrkdwn(text: string): string {
  const escaped = text.replace(CONTROL, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return neutraliseMentions(escaped);
}

/** Untrusted text for a plain_text object: no markup there, but mentions and control characters still go. */
export function plainText(text: string): string {
  return neutraliseMentions(text.replace(CONTROL, "").replace(/<(?=[!@#])/g, `<${WORD_JOINER}`));
}

/**
 * Cuts text to at most `max` UTF-16 units (Slack counts characters; units are never fewer),
 * ending with an ellipsis, never inside a surrogate pair, an `&amp;`-style entity or a `<url|label>`
 * link (the whole link goes).
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - 1));
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  cut = cut.replace(/&[a-z]{0,4}$/, "");
  // Escaped text has no raw "<": one left open is the start of a link (or mention) that was cut.
  cut = cut.replace(/<[^>]*$/, "");
  return `${cut}…`;
}

/** Whether a URL may be linked at all: absolute http(s), no user or password part, no spaces, not huge. */
export function isLinkableUrl(url: string): boolean {
  if (url.length > 2000 || !/^https?:\/\/[^\s]+$/i.test(url)) return false;
  try {
    const parsed = new URL(url);
    return (parsed.protocol === "https:" || parsed.protocol === "http:") && !parsed.username && !parsed.password;
  } catch {
    return false;
  }
}

/**
 * A link in mrkdwn to an http(s) URL, or just the escaped label when the URL is unusable (see
 * `isLinkableUrl`; `https://host@evil.example/` is refused). Callers narrow the hosts further.
 */
export function mrkdwnLink(url: string | undefined, label: string): string {
  const safeLabel = escapeMrkdwn(singleLine(label)).replace(/\|/g, "¦");
  if (!url || !isLinkableUrl(url)) return safeLabel;
  const safeUrl = url.replace(/&/g, "&amp;").replace(/</g, "%3C").replace(/>/g, "%3E").replace(/\|/g, "%7C");
  return `<${safeUrl}|${safeLabel}>`;
}
