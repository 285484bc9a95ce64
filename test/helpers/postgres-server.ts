/**
 * A real Postgres for the tests (`embedded-postgres.ts` starts it): one server per test file, its
 * password registered with the log audit before the server exists, and settings for speed, not
 * durability (no fsync, asynchronous commits, no full-page writes, small shared buffers): a crash
 * of the test machine loses nothing the tests need.
 */
import { type EmbeddedPostgres, newPostgresPassword, startEmbeddedPostgres } from "./embedded-postgres.js";
import { registerSecret } from "./known-secrets.js";

/** The server a test file uses; its `password` is registered with the log audit as a secret. */
export type TestPostgres = EmbeddedPostgres;

const TEST_SETTINGS = {
  fsync: "off",
  synchronous_commit: "off",
  full_page_writes: "off",
  shared_buffers: "16MB",
  max_connections: "80",
};

/** Starts a fresh Postgres server for a test file; `stop()` shuts it down and deletes its data. */
export async function startTestPostgres(): Promise<TestPostgres> {
  const password = newPostgresPassword();
  registerSecret(password, "test Postgres password");
  return startEmbeddedPostgres({ password, settings: TEST_SETTINGS, folderPrefix: "rs-test-postgres-" });
}
