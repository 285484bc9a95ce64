import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StoreError } from "../../src/errors.js";
import { isPostgresUrl, openStateStore, redactedPostgresUrl } from "../../src/store/state-store.js";

describe("openStateStore", () => {
  it("works in memory for unit tests", async () => {
    const store = await openStateStore(":memory:");
    await store.namespace("x").set("k", 1);
    expect(await store.namespace("x").get("k")).toBe(1);
    expect(await store.namespace("y").get("k")).toBeUndefined();
    await store.close();
  });

  it("names the file when it is not a database", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "rs-store-")), "broken.sqlite");
    writeFileSync(file, "this is not sqlite ".repeat(200));
    await expect(openStateStore(file)).rejects.toBeInstanceOf(StoreError);
    await expect(openStateStore(file)).rejects.toThrow(/broken\.sqlite/);
  });
});

describe("the state location", () => {
  it("is a Postgres URL (postgres:// or postgresql://) or else a SQLite path", () => {
    expect(isPostgresUrl("postgres://rs@db:5432/rs")).toBe(true);
    expect(isPostgresUrl(" POSTGRESQL://rs@db/rs")).toBe(true);
    expect(isPostgresUrl("./state/retention-sync.sqlite")).toBe(false);
    expect(isPostgresUrl("postgres.sqlite")).toBe(false);
  });

  it("is shown without its password or query", () => {
    expect(redactedPostgresUrl("postgres://rs:s3cr%40t-pass@db.internal:5432/retention?sslmode=require")).toBe(
      "postgres://rs@db.internal:5432/retention",
    );
    expect(redactedPostgresUrl("postgresql://db/retention")).toBe("postgresql://db/retention");
  });
});
