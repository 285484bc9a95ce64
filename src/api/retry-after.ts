/**
 * Seconds to wait from a `Retry-After` header: integer seconds (spec 7.3) or an HTTP-date
 * (RFC 9110). Undefined when absent or unreadable; never negative. `now` is passed in.
 */
export function parseRetryAfter(header: string | readonly string[] | undefined, now: number): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  if (/^\d+\.\d+$/.test(value)) return Math.ceil(Number(value));
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}
