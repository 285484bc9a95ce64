import { describe, expect, it } from "vitest";
import { paginate } from "../../src/api/paginate.js";
import type { Page } from "../../src/api/schemas.js";
import { ApiResponseError } from "../../src/errors.js";

type Row = { id: number };
const options = { method: "GET", path: "/employees", identity: (r: Row) => r.id };

async function walk(fetchPage: (page: number) => Page<Row>, extra: { maxPages?: number } = {}) {
  const rows: number[] = [];
  const asked: number[] = [];
  const error = await (async () => {
    for await (const row of paginate(
      async (page) => {
        asked.push(page);
        return fetchPage(page);
      },
      { ...options, ...extra },
    )) {
      rows.push(row.id);
    }
  })().then(
    () => undefined,
    (e: unknown) => e,
  );
  return { rows, asked, error };
}

const rows = (from: number, n: number): Row[] => Array.from({ length: n }, (_, i) => ({ id: from + i }));

describe("paginate", () => {
  it("walks every page once and yields each row once, even when rows shift onto the next page", async () => {
    const pages: Record<number, Page<Row>> = {
      1: { items: rows(1, 3), page: 1, pageSize: 3, total: 7, hasMore: true },
      2: { items: rows(3, 3), page: 2, pageSize: 3, total: 7, hasMore: true },
      3: { items: rows(6, 2), page: 3, pageSize: 3, total: 7, hasMore: false },
    };
    const result = await walk((page) => pages[page] ?? { items: [], page, pageSize: 3, hasMore: false });
    expect(result).toEqual({ rows: [1, 2, 3, 4, 5, 6, 7], asked: [1, 2, 3], error: undefined });
  });

  it("stops fresh rows with hasMore forever one page past the announced total", async () => {
    const result = await walk((page) => ({ items: rows(page * 10, 5), page, pageSize: 5, total: 10, hasMore: true }));
    expect(result.asked).toEqual([1, 2, 3]);
    expect(result.error).toBeInstanceOf(ApiResponseError);
    expect((result.error as Error).message).toMatch(
      /GET \/employees: .*page 3: hasMore is still true past the 10 rows \(2 pages\) the server announced/,
    );
  });

  it("stops a walk without a total at the page ceiling", async () => {
    const result = await walk((page) => ({ items: rows(page * 10, 5), page, pageSize: 5, hasMore: true }), {
      maxPages: 4,
    });
    expect(result.asked).toEqual([1, 2, 3, 4]);
    expect((result.error as Error).message).toMatch(/page 4: hasMore is still true after 4 pages/);
  });

  it("stops on pages that only repeat rows already seen", async () => {
    const result = await walk((page) => ({ items: rows(1, 5), page, pageSize: 5, hasMore: true }));
    expect(result.asked).toEqual([1, 2, 3, 4]);
    expect(result.rows).toEqual([1, 2, 3, 4, 5]);
    expect((result.error as Error).message).toMatch(/page 4: 3 pages in a row repeat rows already seen/);
  });

  it("stops on an empty page that claims more", async () => {
    const result = await walk((page) => ({ items: [], page, pageSize: 5, hasMore: true }));
    expect(result.asked).toEqual([1]);
    expect((result.error as Error).message).toMatch(/page 1: the page is empty but hasMore is true/);
  });
});

describe("paginate when rows are erased during the walk", () => {
  /** A newest-first list of ids 1..n, pageSize 3; `erase` removes rows between two page reads. */
  function shrinkingList(n: number) {
    let ids = Array.from({ length: n }, (_, i) => i + 1);
    return {
      erase(id: number) {
        ids = ids.filter((x) => x !== id);
      },
      page(page: number): Page<Row> {
        const items = ids.slice((page - 1) * 3, page * 3).map((id) => ({ id }));
        return { items, page, pageSize: 3, total: ids.length, hasMore: page * 3 < ids.length };
      },
    };
  }

  it("starts again from page 1 when the total shrinks, so no row shifted onto a page already read is missed", async () => {
    const list = shrinkingList(9);
    const result = await walk((page) => {
      // Row 2 is erased right after page 1 was read: rows 4..9 each move one place up.
      if (page === 2 && list.page(1).total === 9) list.erase(2);
      return list.page(page);
    });
    expect(result.error).toBeUndefined();
    expect([...result.rows].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(result.asked).toEqual([1, 2, 1, 2, 3]);
  });

  it("gives up with an error (no silent gap) when the list keeps shrinking", async () => {
    const list = shrinkingList(30);
    let next = 30;
    const result = await walk((page) => {
      if (page > 1) list.erase(next--);
      return list.page(page);
    });
    expect(result.error).toBeInstanceOf(ApiResponseError);
    expect((result.error as Error).message).toMatch(/the list shrank while being read, 4 times in one walk/);
  });
});
