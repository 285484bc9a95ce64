import { ApiResponseError } from "../errors.js";
import type { Page } from "./spec-records.js";

export interface PaginateOptions<T> {
  readonly method: string;
  readonly path: string;
  /** Identity of a row, to skip a row seen on an earlier page (newest-first lists shift while walked). */
  readonly identity: (item: T) => string | number;
  /** Consecutive pages made only of rows already seen before the walk is declared stuck. */
  readonly maxStalePages?: number;
  /** Hard ceiling on pages in one walk, whatever the server says (default 10,000: a million rows at 100). */
  readonly maxPages?: number;
  /** Times a walk starts again from page 1 because the list shrank while it was read (default 3). */
  readonly maxRestarts?: number;
}

export const DEFAULT_MAX_PAGES = 10_000;
// Rows may be added while a list is walked; one page beyond the announced total is allowed for that.
const PAGES_PAST_TOTAL = 1;

/**
 * Walks a paginated list page by page while `hasMore` is true, yielding each row once. A server
 * that keeps answering `hasMore` (with empty pages, the same rows again, or rows past the total it
 * announced) would loop forever and grow memory without bound: that is an ApiResponseError instead.
 * Rows added while walking push rows onto later pages (seen again, skipped); rows removed pull
 * rows onto pages already read, which would be missed: when `total` shrinks, the walk starts again
 * from page 1 (rows seen are skipped), at most `maxRestarts` times.
 */
export async function* paginate<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  options: PaginateOptions<T>,
): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string | number>();
  const maxStale = options.maxStalePages ?? 3;
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const maxRestarts = options.maxRestarts ?? 3;
  const stuck = (page: number, detail: string) =>
    new ApiResponseError(options.method, options.path, 200, `page ${page}: ${detail}; stopped reading the list`);
  let stale = 0;
  let lastTotal: number | undefined;
  let restarts = 0;
  /** The furthest page read before the last restart: pages up to it are expected to repeat rows. */
  let reread = 0;
  let fetched = 0;
  for (let page = 1; ; page += 1) {
    const result = await fetchPage(page);
    fetched += 1;
    let fresh = 0;
    for (const item of result.items) {
      const id = options.identity(item);
      if (seen.has(id)) continue;
      seen.add(id);
      fresh += 1;
      yield item;
    }
    const shrank = result.total !== undefined && lastTotal !== undefined && result.total < lastTotal;
    if (result.total !== undefined) lastTotal = result.total;
    if (shrank && page > 1) {
      if (restarts >= maxRestarts) {
        throw stuck(page, `the list shrank while being read, ${restarts + 1} times in one walk`);
      }
      restarts += 1;
      reread = Math.max(reread, page);
      stale = 0;
      page = 0;
      continue;
    }
    if (!result.hasMore) return;
    if (result.items.length === 0) throw stuck(page, "the page is empty but hasMore is true");
    stale = fresh === 0 && page > reread ? stale + 1 : 0;
    if (stale >= maxStale) {
      throw stuck(page, `${stale} pages in a row repeat rows already seen while hasMore stays true`);
    }
    if (result.total !== undefined) {
      const lastPage = Math.ceil(result.total / result.pageSize);
      if (page >= lastPage + PAGES_PAST_TOTAL) {
        const pages = `${lastPage} page${lastPage === 1 ? "" : "s"}`;
        throw stuck(page, `hasMore is still true past the ${result.total} rows (${pages}) the server announced`);
      }
    }
    if (page >= maxPages || fetched >= maxPages * (maxRestarts + 1)) {
      throw stuck(page, `hasMore is still true after ${maxPages} pages`);
    }
  }
}
