/**
 * Canonical form of a professional-network (LinkedIn) public profile URL: the one key the roster
 * is matched on. Pure; never throws; every refusal carries a reason a report can count.
 */

export type ProfileUrlRefusal =
  | "empty"
  | "not-a-url"
  | "not-linkedin"
  | "not-a-profile"
  | "opaque-id"
  | "invalid-slug"
  | "unsafe";

export type CanonicalProfileUrl =
  | { readonly ok: true; readonly url: string; readonly slug: string }
  | { readonly ok: false; readonly reason: ProfileUrlRefusal; readonly message: string };

const CANONICAL_PREFIX = "https://www.linkedin.com/in/";
// www, mobile (m), country (uk, de, pt-br style) subdomains; nothing deeper.
const LINKEDIN_HOST = /^(?:[a-z0-9-]{1,12}\.)?linkedin\.com\.?$/;
// LinkedIn vanity slugs are 3-100 letters, digits or hyphens (letters may be non-Latin).
const SLUG = /^[\p{L}\p{M}\p{N}_-]{3,100}$/u;
// The internal member id (`ACoAA...`, base64url) is not a public slug; compared case-insensitively
// so that every case variant of one pasted value gets the same answer.
const OPAQUE_ID = /^acoa[a-z0-9_-]{16,}$/i;
// Zero-width characters that survive copy and paste from web pages and spreadsheets.
const INVISIBLE = /[\u200B-\u200D\u2060\uFEFF]/g;
// Browsers cap URLs around 2,000 characters; anything longer in an HRIS cell is junk or an attack.
export const MAX_PROFILE_URL_LENGTH = 2048;
// Inside a URL these are never pasted by accident: the URL parser would silently drop or keep them.
const CONTROL_OR_SPACE = /[\p{Cc}\p{Zs}\u2028\u2029]/u;
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
// A "." or ".." path segment, literal or percent-encoded: `/company/x/../../in/y` is not a pasted profile.
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;
const CONFUSABLE_SCRIPTS = [
  ["Latin", /\p{Script=Latin}/u],
  ["Cyrillic", /\p{Script=Cyrillic}/u],
  ["Greek", /\p{Script=Greek}/u],
] as const;

function refuse(reason: ProfileUrlRefusal, message: string): CanonicalProfileUrl {
  return { ok: false, reason, message };
}

/**
 * A cell value as it may appear inside a report line: quoted, clipped, with control, invisible and
 * text-direction characters escaped so that no terminal, log viewer or chat client acts on them.
 */
export function quoteValue(text: string, max = 60): string {
  return `"${cleanValue(text, max)}"`;
}

/** The same as quoteValue, without the quotes: a name or department in a report line. */
export function cleanValue(text: string, max = 60): string {
  const chars = [...text];
  const clipped = chars.length > max ? `${chars.slice(0, max - 3).join("")}...` : text;
  return clipped.replace(
    /[\p{Cc}\u2028\u2029\u061C\u200B-\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/gu,
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`,
  );
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The text as typed, split after the scheme: the authority (user names, ports, look-alike hosts hide there) and the path. */
function rawParts(text: string): { authority: string; path: string } {
  const rest = text.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/^\/\//, "");
  const authority = rest.split(/[/?#\\]/, 1)[0] ?? "";
  return { authority, path: rest.slice(authority.length).split(/[?#]/, 1)[0] ?? "" };
}

function parseLoosely(text: string): URL | undefined {
  let candidate = text;
  if (candidate.startsWith("//")) candidate = `https:${candidate}`;
  // "host:port/..." is a scheme-less URL, "mailto:..." is not; only `scheme://` or a known scheme counts.
  else if (
    !/^[a-z][a-z0-9+.-]*:\/\//i.test(candidate) &&
    !/^(?:mailto|tel|data|javascript|file|urn):/i.test(candidate)
  ) {
    candidate = `https://${candidate}`;
  }
  try {
    return new URL(candidate);
  } catch {
    return undefined;
  }
}

/** Maps any pasted variant of a public profile URL to `https://www.linkedin.com/in/<slug>`, or says why not. */
export function canonicalProfileUrl(input: unknown): CanonicalProfileUrl {
  try {
    return canonicalize(input);
  } catch {
    return refuse("not-a-url", "the value could not be read as a URL");
  }
}

// Most cells of a clean export are already canonical: answer those without a URL parse.
const ALREADY_CANONICAL = /^https:\/\/www\.linkedin\.com\/in\/([a-z0-9-]{3,100})$/;

/** Refusals of what the WHATWG parser would quietly repair: the service must never get a guess. */
function unsafeText(text: string): CanonicalProfileUrl | undefined {
  if (text.length > MAX_PROFILE_URL_LENGTH) {
    return refuse(
      "unsafe",
      `the value is ${text.length} characters long; a profile URL is at most ${MAX_PROFILE_URL_LENGTH}`,
    );
  }
  if (CONTROL_OR_SPACE.test(text)) {
    return refuse("unsafe", `${quoteValue(text)} has a line break, tab, space or control character inside`);
  }
  if (BIDI.test(text)) return refuse("unsafe", `${quoteValue(text)} has hidden text-direction characters`);
  if (text.includes("\\")) return refuse("unsafe", `${quoteValue(text)} has a backslash; use / in URLs`);
  return undefined;
}

/** What the parser would quietly drop or resolve in a web URL: credentials, look-alike hosts, dot segments. */
function authorityProblem(text: string): CanonicalProfileUrl | undefined {
  const { authority, path } = rawParts(text);
  if (authority.includes("@")) {
    return refuse("unsafe", `${quoteValue(text)} carries a user name or password (…@); paste the plain profile URL`);
  }
  if (/[^\x21-\x7e]/.test(authority)) {
    return refuse("unsafe", `${quoteValue(text)} has non-ASCII (look-alike) letters in the host name`);
  }
  if (DOT_SEGMENT.test(path)) {
    return refuse("unsafe", `${quoteValue(text)} has "." or ".." path segments; paste the plain /in/<name> URL`);
  }
  return undefined;
}

function slugProblem(slug: string, decoded: string): CanonicalProfileUrl | undefined {
  if (OPAQUE_ID.test(slug)) {
    return refuse(
      "opaque-id",
      "an internal member-id profile URL (/in/ACoAA...) is refused by the service; paste the public /in/<name> URL",
    );
  }
  if (!SLUG.test(slug)) {
    return refuse(
      "invalid-slug",
      `${quoteValue(decoded)} is not a valid profile name (3-100 letters, digits or hyphens)`,
    );
  }
  if (slug !== slug.normalize("NFKC")) {
    return refuse(
      "unsafe",
      `${quoteValue(decoded)} has full-width or compatibility characters; retype the profile name`,
    );
  }
  const scripts = CONFUSABLE_SCRIPTS.filter(([, pattern]) => pattern.test(slug)).map(([name]) => name);
  if (scripts.length > 1) {
    return refuse(
      "unsafe",
      `${quoteValue(decoded)} mixes ${scripts.join(" and ")} letters (look-alike characters); retype the profile name`,
    );
  }
  return undefined;
}

function canonicalize(input: unknown): CanonicalProfileUrl {
  if (typeof input !== "string") return refuse("empty", "no profile URL given");
  const fast = ALREADY_CANONICAL.exec(input);
  if (fast?.[1] !== undefined && !OPAQUE_ID.test(fast[1])) return { ok: true, url: input, slug: fast[1] };
  const text = input.replace(INVISIBLE, "").trim();
  if (text === "") return refuse("empty", "no profile URL given");
  if (/^[=+\-@]/.test(text)) {
    return refuse("not-a-url", "the cell holds a spreadsheet formula, not a URL (formulas are never evaluated)");
  }
  // "12345", "n/a", "TRUE": a URL has at least a dot or a slash; the parser would read "12345" as a host.
  if (!/[./]/.test(text)) return refuse("not-a-url", `${quoteValue(text)} is not a URL`);
  const unsafe = unsafeText(text);
  if (unsafe) return unsafe;
  const url = parseLoosely(text);
  if (!url) return refuse("not-a-url", `${quoteValue(text)} is not a URL`);
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return refuse("not-a-url", `${quoteValue(text)} is not a web URL (only https:// profile links are accepted)`);
  }
  const hidden = authorityProblem(text);
  if (hidden) return hidden;
  const host = url.hostname.toLowerCase();
  if (!LINKEDIN_HOST.test(host)) {
    return refuse("not-linkedin", `${quoteValue(text)} is not a LinkedIn URL (host ${quoteValue(host)})`);
  }
  // The parser drops :443 on https and :80 on http; a pasted http link with :443 is still LinkedIn's.
  if (url.port !== "" && url.port !== "443" && url.port !== "80") {
    return refuse("unsafe", `${quoteValue(text)} names port ${url.port}; a profile URL has no port`);
  }
  const segments = url.pathname.split("/").filter((s) => s !== "");
  const kind = segments[0]?.toLowerCase();
  if (kind === "profile" && segments[1]?.toLowerCase() === "view" && url.searchParams.has("id")) {
    return refuse(
      "opaque-id",
      "a member-id profile link (profile/view?id=...) has no public slug; paste the /in/<name> URL",
    );
  }
  if (kind !== "in" || segments[1] === undefined) {
    return refuse("not-a-profile", `${quoteValue(text)} is not a public profile URL (expected linkedin.com/in/<name>)`);
  }
  const decoded = decodeSegment(segments[1]);
  if (decoded === undefined) return refuse("invalid-slug", `${quoteValue(text)} has broken percent-encoding`);
  const slug = decoded.normalize("NFC").toLowerCase().normalize("NFC");
  const problem = slugProblem(slug, decoded);
  if (problem) return problem;
  return { ok: true, url: CANONICAL_PREFIX + encodeURIComponent(slug), slug };
}
