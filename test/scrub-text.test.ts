import { describe, expect, it } from "vitest";
import { problemKind, scrubHint } from "../src/scrub-text.js";

describe("scrubHint: a file's excerpt in an error, without what looks like a secret", () => {
  it("masks KEY=value pairs, secret-named keys, token formats, URL passwords and long opaque strings", () => {
    const text = [
      '"RETENTION_API_KEY=rk_live_abcdef0123456789"',
      "PGPASSWORD=correct-horse-battery",
      '"password": "hunter2"',
      "api_token: t0k3n",
      "xoxb-1111-2222-abcdefghijklmnop",
      "Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig",
      "postgres://app:s3cr3t@db:5432/state",
      "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA",
    ].join(" | ");
    const scrubbed = scrubHint(text);
    for (const secret of [
      "rk_live_abcdef0123456789",
      "correct-horse-battery",
      "hunter2",
      "t0k3n",
      "xoxb-1111",
      "eyJhbGciOiJIUzI1NiJ9",
      "s3cr3t",
      "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA",
    ]) {
      expect(scrubbed).not.toContain(secret);
    }
    expect(scrubbed).toContain('"RETENTION_API_KEY=[masked]"');
    expect(scrubbed).toContain("PGPASSWORD=[masked]");
    expect(scrubbed).toContain("postgres://app:[masked]@db:5432/state");
    // A JSON parser quotes the first ten characters of a line: a token's start is masked too.
    expect(scrubHint(`Unexpected token 'x', "xoxb-1111-"... is not valid JSON`)).not.toContain("xoxb-1111");
    expect(scrubHint(`Unexpected token 'g', "ghp_a1b2c3"... is not valid JSON`)).not.toContain("ghp_a1b2c3");
  });

  it("leaves a real export's words alone and cuts long quoted excerpts", () => {
    const header = 'Found columns: "Employee #", "First Name", "Work Email", "LinkedIn URL"';
    expect(scrubHint(header)).toBe(header);
    const url = "https://www.linkedin.com/in/john-smith-8a7b6c5d is not a LinkedIn profile";
    expect(scrubHint(url)).toBe(url);
    expect(scrubHint(`line 2: "${"a".repeat(100)}" is not a URL`)).toBe(`line 2: "${"a".repeat(37)}..." is not a URL`);
  });
});

describe("problemKind: the kind of a problem, nothing of the file", () => {
  it("keeps the words before the first detail, or a fallback when they look like content", () => {
    expect(problemKind('has no profile URL column. Found columns: "KEY=x"')).toBe("has no profile URL column");
    expect(problemKind("cannot be read: ENOENT")).toBe("cannot be read");
    expect(problemKind('none of its 2 rows has a usable profile URL (line 2: "PGPASSWORD=x" is not a URL)')).toBe(
      "none of its 2 rows has a usable profile URL",
    );
    expect(problemKind("RETENTION_API_KEY=rk_live_abcdef0123456789 is odd")).toBe("unusable");
    expect(problemKind("xoxb-1111-2222-abcdefghijklmnop")).toBe("unusable");
  });
});
