// Apart from postgres-state-store.ts so that telling a URL from a file path, and scrubbing its
// password from the logs, does not load the `pg` driver into a daemon whose state is a SQLite file.

/** Whether a state location is a Postgres URL (else it is a SQLite file path). */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location.trim());
}

/** The URL as logs may show it: user, host, port and database, never the password or the query. */
export function redactedPostgresUrl(url: string): string {
  try {
    const u = new URL(url);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : "";
    return `${u.protocol}//${user}${u.host}${u.pathname}`;
  } catch {
    return "postgres://(unparseable URL)";
  }
}

/** The password a Postgres URL carries, decoded (the logger scrubs it). */
export function postgresUrlPassword(url: string): string | undefined {
  try {
    const password = new URL(url).password;
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return undefined;
  }
}
