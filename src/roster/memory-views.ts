import { type IdentifiedRow, mergedIdentity, type RowIdentity } from "./row-identity.js";

/**
 * Read-only views that let the memory after a new export be the memory before it plus the export,
 * without copying either: for a 1,000,000-row export a copy was two more hash tables and a million
 * identity objects, built on every run. The store materialises them when it saves the memory.
 */

/** Where rows of this export are found by profile URL: the in-scope people and the excluded rows. */
export interface RowSource {
  get(url: string): IdentifiedRow | undefined;
  has(url: string): boolean;
  keys(): Iterable<string>;
}

/** A map of rows, or a map of anything that holds a row (`{ person }`), as a RowSource. */
export function rowSource<V>(map: ReadonlyMap<string, V>, rowOf: (value: V) => IdentifiedRow): RowSource {
  return {
    get: (url) => {
      const value = map.get(url);
      return value === undefined ? undefined : rowOf(value);
    },
    has: (url) => map.has(url),
    keys: () => map.keys(),
  };
}

function inAny(sources: readonly RowSource[], url: string, before = sources.length): boolean {
  for (let i = 0; i < before; i += 1) if (sources[i]?.has(url)) return true;
  return false;
}

/** Everything in `base` or in any source: the profile URLs seen in some HRIS export. */
export class UnionSet implements ReadonlySet<string> {
  private counted: number | undefined;

  constructor(
    private readonly base: ReadonlySet<string>,
    private readonly sources: readonly RowSource[],
  ) {}

  has(url: string): boolean {
    return this.base.has(url) || inAny(this.sources, url);
  }

  get size(): number {
    if (this.counted === undefined) {
      let n = 0;
      for (const _ of this) n += 1;
      this.counted = n;
    }
    return this.counted;
  }

  *values(): SetIterator<string> {
    yield* this.base;
    for (let i = 0; i < this.sources.length; i += 1) {
      for (const url of this.sources[i]?.keys() ?? []) {
        if (!this.base.has(url) && !inAny(this.sources, url, i)) yield url;
      }
    }
  }

  keys(): SetIterator<string> {
    return this.values();
  }

  *entries(): SetIterator<[string, string]> {
    for (const url of this) yield [url, url];
  }

  [Symbol.iterator](): SetIterator<string> {
    return this.values();
  }

  forEach(callback: (value: string, key: string, set: ReadonlySet<string>) => void): void {
    for (const url of this) callback(url, url, this);
  }
}

/**
 * The identities after an export: each row's identity merged over the remembered one (a field the
 * row leaves empty keeps its remembered value); a remembered identity of a URL neither in the
 * export nor `kept` (on the service) is dropped, so that leavers do not make the memory grow
 * forever. Only people on the service can be archived; only they need to be recognised.
 */
export class IdentityView implements ReadonlyMap<string, RowIdentity> {
  private counted: number | undefined;

  constructor(
    private readonly previous: ReadonlyMap<string, RowIdentity>,
    private readonly sources: readonly RowSource[],
    private readonly kept: ReadonlySet<string>,
  ) {}

  get(url: string): RowIdentity | undefined {
    for (const source of this.sources) {
      const row = source.get(url);
      if (row !== undefined) return mergedIdentity(row, this.previous.get(url));
    }
    return this.kept.has(url) ? this.previous.get(url) : undefined;
  }

  has(url: string): boolean {
    return this.get(url) !== undefined;
  }

  get size(): number {
    if (this.counted === undefined) {
      let n = 0;
      for (const _ of this.entries()) n += 1;
      this.counted = n;
    }
    return this.counted;
  }

  *entries(): MapIterator<[string, RowIdentity]> {
    for (const [url, identity] of this.previous) {
      if (this.kept.has(url) && !inAny(this.sources, url)) yield [url, identity];
    }
    for (let i = 0; i < this.sources.length; i += 1) {
      const source = this.sources[i];
      if (source === undefined) continue;
      for (const url of source.keys()) {
        if (inAny(this.sources, url, i)) continue;
        const row = source.get(url);
        const identity = row === undefined ? undefined : mergedIdentity(row, this.previous.get(url));
        if (identity !== undefined) yield [url, identity];
      }
    }
  }

  *keys(): MapIterator<string> {
    for (const [url] of this.entries()) yield url;
  }

  *values(): MapIterator<RowIdentity> {
    for (const [, identity] of this.entries()) yield identity;
  }

  [Symbol.iterator](): MapIterator<[string, RowIdentity]> {
    return this.entries();
  }

  forEach(callback: (value: RowIdentity, key: string, map: ReadonlyMap<string, RowIdentity>) => void): void {
    for (const [url, identity] of this.entries()) callback(identity, url, this);
  }
}
