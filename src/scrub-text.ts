/**
 * Text from a file the daemon was pointed at (an HRIS export, or by mistake an env file or a
 * secrets file) may reach an error message, the logs and the CLI. `scrubHint` masks what looks
 * like a secret in such text and shortens quoted excerpts: `KEY=value` and `password: value`
 * pairs, well-known token formats, credentials in URLs and long opaque strings. `problemKind`
 * keeps only the kind of a problem, for places that must show no file content at all (/readyz).
 */

const MASK = "[masked]";

/** `NAME=value` (env files, query strings): the value. */
const ASSIGNMENT = /\b([A-Za-z_][A-Za-z0-9_.-]*)(\s*=\s*)("[^"]*"?|'[^']*'?|[^\s"',;)]+)/g;
/** `password: value`, `"token": "value"` (YAML, JSON): the value of a secret-named key. */
const SECRET_PAIR =
  /\b([A-Za-z0-9_.-]*(?:key|token|secret|password|passwd|pwd|credential)s?["']?)(\s*:\s*)("[^"]*"?|'[^']*'?|[^\s"',;)]+)/gi;
/**
 * Token formats (Slack, webhook secrets, API keys of common services, bearer tokens, private
 * keys), their first characters too: a parser's error quotes the start of a line.
 */
const TOKEN =
  /\b(?:xox[a-z]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+|whsec_[A-Za-z0-9_]+|(?:rk|sk|pk|rsk)_[A-Za-z0-9_]{4,}|gh[pousr]_[A-Za-z0-9]{4,}|AKIA[A-Z0-9]{4,}|eyJ[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]+)*)|\bBearer\s+\S+|-----BEGIN [A-Z ]*PRIVATE KEY-----/g;
/** `scheme://user:password@host`: the password. */
const URL_PASSWORD = /(\/\/[^/:@\s"']*:)[^@/\s"']*@/g;
/** Runs of 24 or more token characters mixing letters and digits: keys, hashes, session ids. */
const OPAQUE = /[A-Za-z0-9_+=-]{24,}/g;
/** A quoted excerpt of a file: shown up to this many characters. */
const EXCERPT_CHARS = 40;

function opaque(run: string): boolean {
  return /[0-9]/.test(run) && /[A-Za-z]/.test(run) && (run.match(/-/g)?.length ?? 0) <= 2;
}

/** `text` with every secret-looking value masked and every quoted excerpt at most 40 characters. */
export function scrubHint(text: string): string {
  return text
    .replace(/"([^"\n]*)"/g, (quoted, inner: string) =>
      inner.length > EXCERPT_CHARS ? `"${inner.slice(0, EXCERPT_CHARS - 3)}..."` : quoted,
    )
    .replace(URL_PASSWORD, `$1${MASK}@`)
    .replace(TOKEN, MASK)
    .replace(ASSIGNMENT, (_, name: string, sign: string) => `${name}${sign}${MASK}`)
    .replace(SECRET_PAIR, (_, name: string, sign: string) => `${name}${sign}${MASK}`)
    .replace(OPAQUE, (run) => (opaque(run) ? MASK : run));
}

/**
 * The kind of a problem, from its message: the words before the first detail (a quote, a colon,
 * a parenthesis, a comma, a sentence's end), so no excerpt of the file comes with it. `fallback`
 * unless those words read as the program's own phrase (lowercase first, letters, digits, spaces,
 * not followed by `=`, nothing a scrub would mask): a message that starts with a cell shows none.
 */
export function problemKind(message: string, fallback = "unusable"): string {
  const match = /^([^.:;("',=]*)(.?)/.exec(message);
  const head = match?.[1]?.trim() ?? "";
  const phrase = /^[a-z][A-Za-z0-9 -]*$/.test(head) && head.includes(" ") && head.length <= 80;
  if (!phrase || match?.[2] === "=" || scrubHint(head) !== head) return fallback;
  return head;
}
