/**
 * Canonical form of a professional-network (LinkedIn) public profile URL: the one key the roster
 * is matched on. Pure; never throws; every refusal carries a reason a report can count.
 */

export type ProfileUrlRefusal = "empty" | "not-a-url" | "not-linkedin" | "not-a-profile" | "opaque-id" | "invalid-slug";

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

function refuse(reason: ProfileUrlRefusal, message: string): CanonicalProfileUrl {
  return { ok: false, reason, message };
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
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

function canonicalize(input: unknown): CanonicalProfileUrl {
  if (typeof input !== "string") return refuse("empty", "no profile URL given");
  const fast = ALREADY_CANONICAL.exec(input);
  if (fast?.[1] !== undefined && !OPAQUE_ID.test(fast[1])) return { ok: true, url: input, slug: fast[1] };
  const text = input.replace(INVISIBLE, "").trim();
  if (text === "") return refuse("empty", "no profile URL given");
  if (/^[=+\-@]/.test(text)) {
    return refuse("not-a-url", "the cell holds a spreadsheet formula, not a URL (formulas are never evaluated)");
  }
  const url = parseLoosely(text);
  if (!url) return refuse("not-a-url", `"${clip(text)}" is not a URL`);
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return refuse("not-a-url", `"${clip(text)}" is not a web URL`);
  }
  const host = url.hostname.toLowerCase();
  if (!LINKEDIN_HOST.test(host)) {
    return refuse("not-linkedin", `"${clip(text)}" is not a LinkedIn URL (host ${host})`);
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
    return refuse("not-a-profile", `"${clip(text)}" is not a public profile URL (expected linkedin.com/in/<name>)`);
  }
  const decoded = decodeSegment(segments[1]);
  if (decoded === undefined) return refuse("invalid-slug", `"${clip(text)}" has broken percent-encoding`);
  const slug = decoded.trim().normalize("NFC").toLowerCase().normalize("NFC");
  if (OPAQUE_ID.test(slug)) {
    return refuse(
      "opaque-id",
      "an internal member-id profile URL (/in/ACoAA...) is refused by the service; paste the public /in/<name> URL",
    );
  }
  if (!SLUG.test(slug))
    return refuse("invalid-slug", `"${clip(decoded)}" is not a valid profile name (3-100 letters, digits or hyphens)`);
  return { ok: true, url: CANONICAL_PREFIX + encodeURIComponent(slug), slug };
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
