/**
 * Reads one page of an HRIS list API (`{"next": ..., "results": [{...}, ...]}`) without parsing its
 * records: the page's other members (cursors, links, counts: a few bytes) are parsed and returned,
 * and the list is found by its brackets and handed back as the raw bytes between them, to be
 * written into the pulled export as they came. Parsing every record only to write it out again
 * cost more CPU than reading the export afterwards; the reader parses each record anyway, and
 * refuses the whole export if one is not JSON.
 *
 * What is checked here: the page is one object; each member outside the list is whole JSON; the
 * list is an array of objects; every string and bracket inside it is closed, in order; nothing
 * follows the page. A page cut anywhere fails these checks.
 */

/** Why a page is not one: `syntax` (not JSON, or cut short), `shape` (JSON, but not a page with that list). */
export class PageEnvelopeError extends Error {
  constructor(
    readonly problem: "syntax" | "shape",
    message: string,
  ) {
    super(message);
    this.name = "PageEnvelopeError";
  }
}

/** The list of a page: its records' raw text, as the bytes between its brackets. */
export interface PageList {
  /** The bytes between `[` and `]`: the records and the commas (and white space) between them. */
  readonly inner: Buffer;
  readonly count: number;
  /** The first record's text, for a look at its keys; undefined for an empty list. */
  readonly first: string | undefined;
}

export interface PageEnvelope {
  /** Every member of the page but the list, parsed. */
  readonly members: Record<string, unknown>;
  /** The list; null when the member is `null`, undefined when the page has none. */
  readonly list: PageList | null | undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
/** Bytes of a string looked at one by one before indexOf takes over. */
const SHORT_STRING = 64;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function syntax(message: string): PageEnvelopeError {
  return new PageEnvelopeError("syntax", message);
}

/** Walks one page; each method takes a byte offset and returns the offset after what it read. */
class PageWalker {
  constructor(private readonly body: Buffer) {}

  space(at: number): number {
    let i = at;
    while (isSpace(this.body[i])) i += 1;
    return i;
  }

  expect(at: number, byte: number, what: string): number {
    const i = this.space(at);
    if (this.body[i] !== byte) {
      throw syntax(i >= this.body.length ? `it ends where ${what} should be` : `${what} expected at byte ${i}`);
    }
    return i + 1;
  }

  /** The offset after the closing quote of the string that opens at `at`. */
  string(at: number): number {
    const body = this.body;
    // Most strings (member names, ids, short values) close within a few bytes: a loop here costs
    // less than a call of indexOf for each; what is longer is left to indexOf. No byte of a UTF-8
    // sequence is a quote or a backslash, so bytes are safe to step through.
    const near = Math.min(body.length, at + SHORT_STRING);
    let i = at + 1;
    for (; i < near; i += 1) {
      const byte = body[i];
      if (byte === QUOTE) return i + 1;
      if (byte === BACKSLASH) i += 1;
    }
    let q = i - 1;
    for (;;) {
      q = body.indexOf(QUOTE, q + 1);
      if (q === -1) throw syntax("it ends inside a string");
      // A quote after an odd run of backslashes is part of the string.
      let slashes = 0;
      while (body[q - 1 - slashes] === BACKSLASH) slashes += 1;
      if (slashes % 2 === 0) return q + 1;
    }
  }

  /** The offset after the object or array that opens at `at`: strings skipped, brackets matched. */
  container(at: number): number {
    const body = this.body;
    const closers: number[] = [];
    let i = at;
    for (;;) {
      const byte = body[i];
      if (byte === undefined) throw syntax("it ends before its last bracket is closed");
      if (byte === QUOTE) {
        i = this.string(i);
        continue;
      }
      if (byte === OPEN_OBJECT) closers.push(CLOSE_OBJECT);
      else if (byte === OPEN_ARRAY) closers.push(CLOSE_ARRAY);
      else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        if (closers.pop() !== byte) throw syntax(`unbalanced "${String.fromCharCode(byte)}" at byte ${i}`);
        if (closers.length === 0) return i + 1;
      }
      i += 1;
    }
  }

  /** The offset after the value that starts at `at` (a number, true, false or null ends at a delimiter). */
  value(at: number): number {
    const byte = this.body[at];
    if (byte === QUOTE) return this.string(at);
    if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) return this.container(at);
    let i = at;
    for (let b = this.body[i]; b !== undefined && b !== COMMA && b !== CLOSE_OBJECT && !isSpace(b); b = this.body[i])
      i += 1;
    if (i === at) throw syntax(`a value expected at byte ${at}`);
    return i;
  }

  /** JSON.parse of the bytes from `start` to `end`: a member outside the list is checked whole. */
  parse(start: number, end: number): unknown {
    try {
      return JSON.parse(this.body.toString("utf8", start, end));
    } catch (error) {
      throw syntax(`${(error as Error).message} (at byte ${start})`);
    }
  }

  /**
   * Reads the object that opens at `at` (its `{`) member by member: `member` gets each name and
   * where its value starts, and returns where the value ends. Returns the offset after the object.
   */
  object(at: number, member: (key: string, valueStart: number) => number): number {
    let i = this.space(at + 1);
    if (this.body[i] === CLOSE_OBJECT) return i + 1;
    for (;;) {
      if (this.body[i] !== QUOTE) throw syntax(`a member name expected at byte ${i}`);
      const keyEnd = this.string(i);
      // Most names have no escape: decoded as they are, not parsed.
      const key = this.body.subarray(i, keyEnd).includes(BACKSLASH)
        ? (this.parse(i, keyEnd) as string)
        : this.body.toString("utf8", i + 1, keyEnd - 1);
      const valueEnd = member(key, this.space(this.expect(keyEnd, COLON, '":"')));
      i = this.space(valueEnd);
      if (this.body[i] === CLOSE_OBJECT) return i + 1;
      i = this.space(this.expect(i, COMMA, '"," or "}"'));
    }
  }

  /**
   * The list that opens at `at` (its `[`): counted, its first record kept, every record an object.
   * With `unwrap`, a record whose member of that name is an object is that object instead.
   */
  list(at: number, key: string, unwrap: string | undefined): { list: PageList; end: number } {
    let i = this.space(at + 1);
    let count = 0;
    let first: string | undefined;
    const parts: Buffer[] = [];
    // The span of the record's member `unwrap`, while a record is read.
    let inner: [number, number] | undefined;
    if (this.body[i] !== CLOSE_ARRAY) {
      for (;;) {
        const byte = this.body[i];
        if (byte === undefined) throw syntax(`it ends inside ${key}`);
        if (byte !== OPEN_OBJECT) {
          throw new PageEnvelopeError("shape", `${key}[${count}] is not an object`);
        }
        const end =
          unwrap === undefined
            ? this.container(i)
            : this.object(i, (name, valueStart) => {
                const valueEnd = this.value(valueStart);
                if (name === unwrap) inner = this.body[valueStart] === OPEN_OBJECT ? [valueStart, valueEnd] : undefined;
                return valueEnd;
              });
        const [start, stop] = inner ?? [i, end];
        inner = undefined;
        if (unwrap !== undefined) parts.push(count === 0 ? NO_BYTES : COMMA_BYTES, this.body.subarray(start, stop));
        if (first === undefined) first = this.body.toString("utf8", start, stop);
        count += 1;
        i = this.space(end);
        if (this.body[i] === CLOSE_ARRAY) break;
        i = this.space(this.expect(i, COMMA, `"," or "]" in ${key}`));
      }
    }
    const bytes = unwrap === undefined ? this.body.subarray(at + 1, i) : Buffer.concat(parts);
    return { list: { inner: bytes, count, first }, end: i + 1 };
  }
}

const NO_BYTES = Buffer.alloc(0);
const COMMA_BYTES = Buffer.from(",");

/** The page in `body` with its list at the top-level member `listKey` (`results`, `data`, `employees`). */
export function readPageEnvelope(
  body: Buffer,
  listKey: string,
  options: { readonly unwrap?: string } = {},
): PageEnvelope {
  const walk = new PageWalker(body);
  const start = walk.space(0);
  if (start >= body.length) throw syntax("it is empty");
  if (body[start] !== OPEN_OBJECT) {
    if (body[start] === OPEN_ARRAY) throw new PageEnvelopeError("shape", "it is a list, not a page object");
    walk.parse(start, body.length);
    throw new PageEnvelopeError("shape", "it is not an object");
  }
  // No prototype: a member named __proto__ is a member like any other.
  const members = Object.create(null) as Record<string, unknown>;
  const seen = new Set<string>();
  let list: PageList | null | undefined;
  const i = walk.object(start, (key, valueStart) => {
    if (seen.has(key)) throw new PageEnvelopeError("shape", `it has ${key} twice`);
    seen.add(key);
    if (key === listKey && body[valueStart] === OPEN_ARRAY) {
      const read = walk.list(valueStart, key, options.unwrap);
      list = read.list;
      return read.end;
    }
    const valueEnd = walk.value(valueStart);
    const value = walk.parse(valueStart, valueEnd);
    if (key !== listKey) members[key] = value;
    else if (value === null) list = null;
    else throw new PageEnvelopeError("shape", `${key} is not a list`);
    return valueEnd;
  });
  if (walk.space(i) < body.length) throw syntax(`unexpected data after the page's end (byte ${walk.space(i)})`);
  return { members, list };
}
