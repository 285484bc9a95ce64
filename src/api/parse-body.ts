import type { z } from "zod";
import { ApiResponseError } from "../errors.js";

export interface ResponseContext {
  readonly method: string;
  readonly path: string;
  readonly status: number;
}

/** Dotted path of a zod issue (`items.3.id`), or `(body)` for the root. */
function issuePath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "(body)" : path.map(String).join(".");
}

/**
 * Parses a 2xx body with its record schema; a violation becomes an ApiResponseError naming the
 * endpoint and the field paths, so an operator sees which field the server left out.
 */
export function parseBody<T extends z.ZodType>(schema: T, data: unknown, context: ResponseContext): z.output<T> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  if (data === undefined || data === null) {
    const what = data === undefined ? "the body is empty" : "the body is JSON null";
    throw new ApiResponseError(context.method, context.path, context.status, `${what}; expected a JSON document`, {
      cause: result.error,
    });
  }
  const issues = result.error.issues.slice(0, 5).map((i) => `${issuePath(i.path)}: ${i.message}`);
  const more = result.error.issues.length > 5 ? ` (+${result.error.issues.length - 5} more)` : "";
  throw new ApiResponseError(context.method, context.path, context.status, `${issues.join("; ")}${more}`, {
    cause: result.error,
  });
}
