import { ApiResponseError } from "../errors.js";
import type { Page } from "./spec-records.js";

export interface PaginateOptions<T> {
  readonly method: string;
  readonly path: string;
  /** Identity of a row, to skip a row seen on an earlier page (newest-first lists shift while walked). */
  readonly identity: (item: T) => string | number;
  /** Consecutive pages made only of rows already seen before the walk is declared stuck. */
  readonly maxStalePages?: number;
}

/**
 * Walks a paginated list page by page while `hasMore` is true, yielding each row once. A server
 * that keeps answering `hasMore` with empty pages (or with the same rows again) would loop forever:
 * that is an ApiResponseError instead.
 */
export async function* paginate<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  options: PaginateOptions<T>,
): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string | number>();
  const maxStale = options.maxStalePages ?? 3;
  let stale = 0;
  for (let page = 1; ; page += 1) {
    const result = await fetchPage(page);
    let fresh = 0;
    for (const item of result.items) {
      const id = options.identity(item);
      if (seen.has(id)) continue;
      seen.add(id);
      fresh += 1;
      yield item;
    }
    if (!result.hasMore) return;
    if (result.items.length === 0) {
      throw new ApiResponseError(options.method, options.path, 200, `page ${page} is empty but hasMore is true`);
    }
    stale = fresh === 0 ? stale + 1 : 0;
    if (stale >= maxStale) {
      throw new ApiResponseError(
        options.method,
        options.path,
        200,
        `${stale} pages in a row (up to page ${page}) repeat rows already seen while hasMore stays true`,
      );
    }
  }
}
