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
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

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
 * ending with an ellipsis, never inside a surrogate pair or an `&amp;`-style entity.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - 1));
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  cut = cut.replace(/&[a-z]{0,4}$/, "");
  return `${cut}…`;
}

/** A link in mrkdwn to an http(s) URL, or just the escaped label when the URL is unusable. */
export function mrkdwnLink(url: string | undefined, label: string): string {
  const safeLabel = escapeMrkdwn(label).replace(/\|/g, "¦");
  if (!url || !/^https?:\/\/[^\s]+$/i.test(url) || url.length > 2000) return safeLabel;
  const safeUrl = url.replace(/&/g, "&amp;").replace(/</g, "%3C").replace(/>/g, "%3E").replace(/\|/g, "%7C");
  return `<${safeUrl}|${safeLabel}>`;
}
