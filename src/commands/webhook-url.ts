/**
 * The local check of a URL given to `webhooks register`: the service delivers only to public HTTPS
 * (spec 6.5 rule 5) and refuses anything else, so a plain mistake is named here, with its fix,
 * before any request. The service stays the judge of the rest (private addresses, the port).
 */

/** Hosts that mean "this machine". */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** Whether the API URL points at this machine: then it is the local emulator, not the service. */
export function isLoopbackApi(apiUrl: string): boolean {
  if (!URL.canParse(apiUrl)) return false;
  return LOOPBACK_HOSTS.has(new URL(apiUrl).hostname);
}

/**
 * Undefined when the URL may be registered, else the sentence saying what is wrong and the fix.
 * `http://127.0.0.1:<port>` is let through only when the API itself is on loopback: that is the
 * emulator, whose `--allow-loopback-webhooks` mode admits such endpoints so that the whole path
 * (register, deliver, receive) can be tested on one machine. The real service refuses them.
 */
export function registrationUrlProblem(url: string, apiUrl: string): string | undefined {
  if (!URL.canParse(url)) {
    return `--url "${url}" is not a URL: give the full public address, e.g. https://hooks.example.com/webhooks/retention`;
  }
  const parsed = new URL(url);
  if (parsed.hostname === "127.0.0.1" && isLoopbackApi(apiUrl)) return undefined;
  if (parsed.protocol !== "https:") {
    return (
      `--url ${parsed.origin}${parsed.pathname}: the service delivers only to public HTTPS URLs (https:// on port 443). ` +
      "Put a TLS-terminating proxy or Ingress in front of the receiver and register its https:// URL (docs/webhooks.md)"
    );
  }
  if (parsed.username || parsed.password) {
    return "--url must not carry a user name or password: the service signs every delivery instead (docs/webhooks.md)";
  }
  return undefined;
}
