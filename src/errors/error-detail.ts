/**
 * An error as one line for a message: a system error's code first (`ECONNREFUSED: connect ...`),
 * since the code is what an operator searches for; anything thrown that is not an Error as text.
 */
export function errorDetail(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
