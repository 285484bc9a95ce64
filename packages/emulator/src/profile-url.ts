/**
 * Public profile and company page URLs of the professional network (LinkedIn).
 * A person is matched by canonical URL, so trivial variants (scheme, www, country or mobile
 * subdomain, host case, trailing slash, query, fragment, percent-encoding, slug case) are one person.
 */

export type ParsedUrl = { ok: true; canonical: string; slug: string } | { ok: false; reason: string };

const HOST = /^(?:(?:www|m|mobile|[a-z]{2})\.)?linkedin\.com$/;
/** The internal member-id form (`/in/ACoAA...`), which is not a public profile URL. */
const OPAQUE_ID = /^ACoAA[A-Za-z0-9_-]*$/;
const SLUG = /^[\p{L}\p{N}_-]{2,100}$/u;

function parseNetworkUrl(input: string, section: "in" | "company", parameter: string): ParsedUrl {
  const what =
    section === "in"
      ? "a public profile URL (https://www.linkedin.com/in/<slug>)"
      : "a company page URL (https://www.linkedin.com/company/<slug>)";
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return { ok: false, reason: `${parameter}: "${input}" is not ${what}.` };
  }
  if (
    (url.protocol !== "https:" && url.protocol !== "http:") ||
    !HOST.test(url.hostname.toLowerCase()) ||
    url.port !== ""
  ) {
    return { ok: false, reason: `${parameter}: "${input}" is not ${what}.` };
  }
  const parts = url.pathname.split("/").filter((p) => p !== "");
  if (parts.length !== 2 || parts[0]?.toLowerCase() !== section) {
    return { ok: false, reason: `${parameter}: "${input}" is not ${what}.` };
  }
  let slug: string;
  try {
    slug = decodeURIComponent(parts[1] ?? "");
  } catch {
    return { ok: false, reason: `${parameter}: "${input}" has an invalid percent-encoding.` };
  }
  if (section === "in" && OPAQUE_ID.test(slug)) {
    return {
      ok: false,
      reason: `${parameter}: "${input}" uses the internal opaque member id (/in/ACoAA...), not a public profile URL; send the public https://www.linkedin.com/in/<slug> form.`,
    };
  }
  if (!SLUG.test(slug)) return { ok: false, reason: `${parameter}: "${input}" is not ${what}.` };
  const lower = slug.toLowerCase();
  return { ok: true, slug: lower, canonical: `https://www.linkedin.com/${section}/${encodeURIComponent(lower)}` };
}

/** Validates a public profile URL and returns its canonical form (the matching key). */
export function parseProfileUrl(input: string, parameter = "networkUrl"): ParsedUrl {
  return parseNetworkUrl(input, "in", parameter);
}

/** Validates a company page URL and returns its canonical form. */
export function parseCompanyUrl(input: string, parameter = "companyNetworkUrl"): ParsedUrl {
  return parseNetworkUrl(input, "company", parameter);
}

function titleCase(word: string): string {
  return word.length === 0 ? word : (word[0] ?? "").toUpperCase() + word.slice(1);
}

/** The company a page resolves to : the slug title-cased, `acme-corp` is "Acme Corp". */
export function companyNameFromSlug(slug: string): string {
  return slug.split(/[-_]+/).filter(Boolean).map(titleCase).join(" ");
}

/** A person's network name from the slug, dropping the numeric or hex suffix LinkedIn appends. */
export function personNameFromSlug(slug: string): string {
  const words = slug.split(/[-_]+/).filter((w) => w !== "" && !/^[0-9a-f]*\d[0-9a-f]*$/.test(w));
  return words.length === 0 ? "Unnamed Member" : words.map(titleCase).join(" ");
}

/** Brand comparison: case-insensitive, ignoring punctuation and spacing. */
export function sameCompanyName(a: string, b: string): boolean {
  const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
  return norm(a) === norm(b);
}
