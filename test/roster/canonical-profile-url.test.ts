import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalProfileUrl, quoteValue } from "../../src/roster/canonical-profile-url.js";

const slugChar = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789-".split(""));
const slugArb = fc
  .array(slugChar, { minLength: 3, maxLength: 40 })
  .map((chars) => chars.join(""))
  .filter((s) => !/^acoa/.test(s));

const variantArb = fc.record({
  scheme: fc.constantFrom("https://", "http://", "", "//", "HTTPS://"),
  host: fc.constantFrom(
    "www.linkedin.com",
    "linkedin.com",
    "uk.linkedin.com",
    "m.linkedin.com",
    "de.linkedin.com",
    "WWW.LinkedIn.COM",
    "www.linkedin.com:443",
  ),
  inSegment: fc.constantFrom("in", "IN", "In"),
  upper: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
  encode: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
  trailing: fc.constantFrom("", "/", "//", "/details/experience/", "/en"),
  query: fc.constantFrom("", "?trk=public_profile", "?originalSubdomain=uk&x=1"),
  fragment: fc.constantFrom("", "#about", "#"),
  before: fc.constantFrom("", " ", "\t", "\u00a0", "\u200b"),
  after: fc.constantFrom("", " ", "\n", "\r\n", "\u00a0"),
});

type Variant = typeof variantArb extends fc.Arbitrary<infer T> ? T : never;

function variantOf(slug: string, v: Variant): string {
  const chars = slug.split("").map((c, i) => {
    const cased = v.upper[i] ? c.toUpperCase() : c;
    return v.encode[i] ? `%${cased.charCodeAt(0).toString(16).padStart(2, "0")}` : cased;
  });
  return `${v.before}${v.scheme}${v.host}/${v.inSegment}/${chars.join("")}${v.trailing}${v.query}${v.fragment}${v.after}`;
}

describe("canonicalProfileUrl", () => {
  it.each([
    ["https://www.linkedin.com/in/jane-doe", "https://www.linkedin.com/in/jane-doe"],
    ["http://linkedin.com/in/Jane-Doe/", "https://www.linkedin.com/in/jane-doe"],
    ["  uk.linkedin.com/in/jane-doe?trk=abc#top ", "https://www.linkedin.com/in/jane-doe"],
    ["m.linkedin.com/in/jane%2Ddoe", "https://www.linkedin.com/in/jane-doe"],
    ["www.linkedin.com/in/jos%C3%A9-garc%C3%ADa", "https://www.linkedin.com/in/jos%C3%A9-garc%C3%ADa"],
    ["https://www.linkedin.com/in/JOSÉ-garcía/", "https://www.linkedin.com/in/jos%C3%A9-garc%C3%ADa"],
  ])("canonicalizes %s", (input, expected) => {
    const result = canonicalProfileUrl(input);
    expect(result).toMatchObject({ ok: true, url: expected });
  });

  it.each([
    ["", "empty"],
    ["   ", "empty"],
    ["https://www.linkedin.com/in/ACoAABcdEfGhIjKlMnOpQrStUvWxYz0123456", "opaque-id"],
    ["https://www.linkedin.com/profile/view?id=12345", "opaque-id"],
    ["https://www.linkedin.com/company/acme-corp", "not-a-profile"],
    ["https://www.linkedin.com/in/", "not-a-profile"],
    ["https://www.linkedin.com/feed/", "not-a-profile"],
    ["https://example.com/in/jane-doe", "not-linkedin"],
    ["https://linkedin.com.evil.example/in/jane-doe", "not-linkedin"],
    ["mailto:jane@example.com", "not-a-url"],
    ['=HYPERLINK("https://www.linkedin.com/in/jane-doe","Jane")', "not-a-url"],
    ["@SUM(1+1)", "not-a-url"],
    ["https://www.linkedin.com/in/ab", "invalid-slug"],
    ["https://www.linkedin.com/in/jane%ZZdoe", "invalid-slug"],
    ["https://www.linkedin.com/in/jane%20doe", "invalid-slug"],
  ])("refuses %s as %s", (input, reason) => {
    const result = canonicalProfileUrl(input);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.reason).toBe(reason);
      expect(result.message.length).toBeGreaterThan(5);
    }
  });

  it("never throws, whatever the input", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.webUrl(), fc.anything()), (value) => {
        const result = canonicalProfileUrl(value);
        expect(typeof result.ok).toBe("boolean");
      }),
      { numRuns: 2000 },
    );
  });

  it("is idempotent", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "binary" }),
          slugArb.map((s) => `linkedin.com/in/${s}`),
        ),
        (value) => {
          const first = canonicalProfileUrl(value);
          if (!first.ok) return;
          expect(canonicalProfileUrl(first.url)).toEqual(first);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("maps every pasted variant of a profile to one canonical URL", () => {
    fc.assert(
      fc.property(slugArb, variantArb, (slug, variant) => {
        const result = canonicalProfileUrl(variantOf(slug, variant));
        expect(result).toEqual({ ok: true, url: `https://www.linkedin.com/in/${slug}`, slug });
      }),
      { numRuns: 1000 },
    );
  });

  it("refuses every variant of an opaque member-id URL", () => {
    const idArb = fc
      .array(fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-".split("")), {
        minLength: 20,
        maxLength: 34,
      })
      .map((chars) => `ACoAA${chars.join("")}`);
    fc.assert(
      fc.property(idArb, variantArb, (id, variant) => {
        const result = canonicalProfileUrl(variantOf(id, variant));
        expect(result).toMatchObject({ ok: false, reason: "opaque-id" });
      }),
    );
  });

  it("refuses profile paths on other hosts", () => {
    fc.assert(
      fc.property(fc.domain(), slugArb, (domain, slug) => {
        fc.pre(!/(^|\.)linkedin\.com$/.test(domain));
        expect(canonicalProfileUrl(`https://${domain}/in/${slug}`)).toMatchObject({
          ok: false,
          reason: "not-linkedin",
        });
      }),
    );
  });

  const hostile: Array<[string, string, RegExp]> = [
    ["https://user:pass@www.linkedin.com/in/jane-doe", "unsafe", /user name or password/],
    ["https://www.linkedin.com@evil.example/in/jane-doe", "unsafe", /user name or password/],
    ["https://www.linkedin.com:8443/in/jane-doe", "unsafe", /port 8443/],
    ["https://www.linkedin.com/in/../company/acme", "unsafe", /"\." or "\.\." path segments/],
    ["https://www.linkedin.com/company/acme/../../in/jane-doe", "unsafe", /path segments/],
    ["https://www.linkedin.com/in/%2e%2e/company/acme", "unsafe", /path segments/],
    ["https://www.linkedin.com/in/jane%2Fdoe", "invalid-slug", /"jane\/doe" is not a valid profile name/],
    ["https://www.linkedin.com\\in\\jane-doe", "unsafe", /backslash/],
    ["https://www.lіnkedin.com/in/jane-doe", "unsafe", /non-ASCII \(look-alike\) letters in the host/],
    ["https://www.ｌinkedin.com/in/jane-doe", "unsafe", /non-ASCII/],
    ["https://www.xn--lnkedin-5kf.com/in/jane-doe", "not-linkedin", /not a LinkedIn URL/],
    ["https://www.linkedin.com/in/jаne-doe", "unsafe", /mixes Latin and Cyrillic/],
    ["https://www.linkedin.com/in/ｊａｎｅ-doe", "unsafe", /full-width/],
    ["https://www.linkedin.com/in/jane\r\n-doe", "unsafe", /line break/],
    ["https://www.linkedin.com/in/jane\u0000doe", "unsafe", /control character/],
    ["https://www.linkedin.com/in/jane doe", "unsafe", /space/],
    ["https://www.linkedin.com/in/jane-doe%0d%0a", "invalid-slug", /not a valid profile name/],
    ["https://www.linkedin.com/in/jane-doe\u202e", "unsafe", /text-direction/],
    [
      `https://www.linkedin.com/in/jane-doe?${"x".repeat(5000)}`,
      "unsafe",
      /5037 characters long; a profile URL is at most 2048/,
    ],
    ["javascript://www.linkedin.com/in/jane-doe", "not-a-url", /not a web URL/],
    ["data:text/html,<b>x</b>", "not-a-url", /not a web URL/],
    ["file:///etc/passwd", "not-a-url", /not a web URL/],
    ["12345", "not-a-url", /"12345" is not a URL/],
  ];
  it.each(
    hostile.map(
      ([input, ...rest]) =>
        [input.length > 80 ? `${input.slice(0, 50)}... (${input.length} chars)` : input, input, ...rest] as const,
    ),
  )("refuses the hostile %s", (_label, input, reason, message) => {
    expect(canonicalProfileUrl(input)).toMatchObject({ ok: false, reason, message: expect.stringMatching(message) });
  });

  it("still accepts default ports and a trailing dot on the host", () => {
    for (const input of [
      "http://www.linkedin.com:443/in/jane-doe",
      "https://www.linkedin.com:443/in/jane-doe",
      "http://linkedin.com:80/in/jane-doe",
      "https://www.linkedin.com./in/jane-doe",
    ]) {
      expect(canonicalProfileUrl(input), input).toMatchObject({
        ok: true,
        url: "https://www.linkedin.com/in/jane-doe",
      });
    }
  });

  it("only ever answers the canonical form: no credentials, port, dot segment or raw character survives", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: "binary" }), fc.webUrl({ withQueryParameters: true, withFragments: true })),
        (value) => {
          const result = canonicalProfileUrl(value);
          if (result.ok) expect(result.url).toMatch(/^https:\/\/www\.linkedin\.com\/in\/[A-Za-z0-9%_-]{3,}$/);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("quotes a value for a report line: clipped, control and direction characters escaped", () => {
    expect(quoteValue("a\u001b[2Jb\u202ec\n")).toBe('"a\\u001b[2Jb\\u202ec\\u000a"');
    expect(quoteValue("x".repeat(100), 10)).toBe('"xxxxxxx..."');
  });
});
