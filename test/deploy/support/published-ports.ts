/** Whether a Compose file's published port is bound to an address (short and long syntax). */

import { at } from "./yaml-tree.js";

/** The parts of a short-syntax port, split at the colons outside `${...}` and `[...]`. */
export function portParts(port: string): string[] {
  const parts: string[] = [];
  let current = "";
  let depth = 0;
  for (const char of port.replace(/\/(tcp|udp)$/, "")) {
    if (char === "{" || char === "[") depth += 1;
    if (char === "}" || char === "]") depth -= 1;
    if (char === ":" && depth === 0) {
      parts.push(current);
      current = "";
    } else current += char;
  }
  return [...parts, current];
}

const isVariable = (text: string) => /^\$\{[A-Za-z_][A-Za-z0-9_]*(:?[-?][^}]*)?\}$/.test(text);

/**
 * Why a published port would listen on every interface, or undefined when it is bound to an
 * address: "IP:HOST:CONTAINER", `host_ip` in the long syntax, or a variable standing for the
 * address and port together (the user's choice).
 */
export function unboundPort(port: unknown): string | undefined {
  if (typeof port === "number") return `${port} publishes on every interface`;
  if (typeof port === "string") {
    const parts = portParts(port);
    if (parts.length === 3 && parts[0] !== "" && !/^(0\.0\.0\.0|\[?::\]?)$/.test(parts[0] ?? "")) return undefined;
    if (parts.length === 2 && isVariable(parts[0] ?? "")) return undefined;
    return `"${port}" publishes on every interface: bind it, e.g. "\${OPS_BIND:-127.0.0.1}:9400:9400"`;
  }
  const hostIp = at(port, "host_ip");
  return typeof hostIp === "string" && hostIp.length > 0 ? undefined : `${JSON.stringify(port)} has no host_ip`;
}
