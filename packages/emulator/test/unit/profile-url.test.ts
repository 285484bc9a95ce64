import { describe, expect, it } from "vitest";
import {
  companyNameFromSlug,
  parseCompanyUrl,
  parseProfileUrl,
  personNameFromSlug,
  sameCompanyName,
} from "../../src/profile-url.js";

describe("emulator profile URLs", () => {
  it.each([
    "https://www.linkedin.com/in/jane-doe",
    "http://linkedin.com/in/jane-doe/",
    "https://de.linkedin.com/in/Jane-Doe?trk=abc#x",
    "https://m.linkedin.com/in/jane%2Ddoe",
    "HTTPS://WWW.LINKEDIN.COM/in/jane-doe",
  ])("matches the variant %s to one canonical URL", (url) => {
    expect(parseProfileUrl(url)).toEqual({
      ok: true,
      slug: "jane-doe",
      canonical: "https://www.linkedin.com/in/jane-doe",
    });
  });

  it("refuses the opaque member-id form, naming it", () => {
    const r = parseProfileUrl("https://www.linkedin.com/in/ACoAABcdEfGh");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/networkUrl.*opaque/);
  });

  it.each([
    "not a url",
    "https://example.com/in/jane",
    "https://www.linkedin.com/company/acme",
    "ftp://linkedin.com/in/x",
    "https://www.linkedin.com:8443/in/jane",
  ])("refuses %s", (url) => {
    expect(parseProfileUrl(url).ok).toBe(false);
  });

  it("resolves company pages by title-casing the slug and compares brands loosely", () => {
    const page = parseCompanyUrl("https://www.linkedin.com/company/acme-corp/");
    expect(page.ok && companyNameFromSlug(page.slug)).toBe("Acme Corp");
    expect(sameCompanyName("ACME corp.", "Acme Corp")).toBe(true);
    expect(sameCompanyName("Globex", "Acme Corp")).toBe(false);
  });

  it("derives a person's name from the slug without its numeric suffix", () => {
    expect(personNameFromSlug("jane-doe-1a2b3c")).toBe("Jane Doe");
  });
});
