/**
 * Compact indexes for million-row exports. A `Map` entry costs about 30 bytes beyond its key and
 * value; these keep one 32-bit slot per item (at most half full) in an Int32Array and find the key
 * on the item itself, so an index of 1,000,000 people costs 8 to 16 MB instead of about 30.
 */

/** FNV-1a over the UTF-16 code units: fast, and spread enough for URLs and employee ids. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Position of an item in a list, by a string key the item carries (`keyAt(position)`). */
export class PositionIndex {
  private slots: Int32Array;
  private mask: number;
  private count = 0;

  constructor(private readonly keyAt: (position: number) => string | undefined) {
    this.slots = new Int32Array(1024).fill(-1);
    this.mask = this.slots.length - 1;
  }

  get size(): number {
    return this.count;
  }

  /** The position holding `key`, or -1. */
  find(key: string): number {
    const { slots, mask } = this;
    for (let at = hashOf(key) & mask; ; at = (at + 1) & mask) {
      const position = slots[at] as number;
      if (position === -1) return -1;
      if (this.keyAt(position) === key) return position;
    }
  }

  /** Adds a position under `key`, which must not be in the index yet. */
  add(key: string, position: number): void {
    if ((this.count + 1) * 2 > this.slots.length) this.grow();
    this.place(key, position);
    this.count += 1;
  }

  private place(key: string, position: number): void {
    const { slots, mask } = this;
    let at = hashOf(key) & mask;
    while (slots[at] !== -1) at = (at + 1) & mask;
    slots[at] = position;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2).fill(-1);
    this.mask = this.slots.length - 1;
    for (const position of old) {
      if (position === -1) continue;
      const key = this.keyAt(position);
      if (key !== undefined) this.place(key, position);
    }
  }
}

/**
 * The in-scope people of an export by profile URL, as a read-only Map over the people list itself
 * (one person per URL: the reader keeps only the first row of a URL).
 */
export class PeopleByUrl<P extends { readonly profileUrl: string }> implements ReadonlyMap<string, P> {
  private readonly index: PositionIndex;

  constructor(private readonly people: readonly P[]) {
    this.index = new PositionIndex((position) => people[position]?.profileUrl);
  }

  /** Adds `people[position]`, whose URL must not be in the index yet. */
  add(position: number): void {
    const person = this.people[position];
    if (person !== undefined) this.index.add(person.profileUrl, position);
  }

  get(url: string): P | undefined {
    const position = this.index.find(url);
    return position === -1 ? undefined : this.people[position];
  }

  has(url: string): boolean {
    return this.index.find(url) !== -1;
  }

  get size(): number {
    return this.index.size;
  }

  *entries(): MapIterator<[string, P]> {
    for (const person of this.people) yield [person.profileUrl, person];
  }

  *keys(): MapIterator<string> {
    for (const person of this.people) yield person.profileUrl;
  }

  *values(): MapIterator<P> {
    yield* this.people;
  }

  [Symbol.iterator](): MapIterator<[string, P]> {
    return this.entries();
  }

  forEach(callback: (value: P, key: string, map: ReadonlyMap<string, P>) => void): void {
    for (const person of this.people) callback(person, person.profileUrl, this);
  }
}
