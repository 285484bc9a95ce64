import {
  type ApiError,
  ApiNetworkError,
  ApiTimeoutError,
  AuthenticationError,
  EXIT_USAGE,
  ExplainedError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
} from "../errors.js";

/** What the failed `webhooks` subcommand was doing, for the sentence that explains its failure. */
export interface WebhookAction {
  /** `register`, `list`, `enable`, `disable`, `delete`. */
  readonly name: string;
  /** The endpoint id the operator gave, for the id-taking subcommands. */
  readonly id?: string | undefined;
  readonly apiUrl: string;
}

const READ_ONLY_FIX =
  "it needs a key with the write scope. A key's scopes are fixed when it is created and cannot be widened: " +
  "create a read+write key in the service's dashboard (Settings, Developers), set RETENTION_API_KEY to it, " +
  "and revoke the old key if nothing else uses it";

/** Whether the API URL lacks the `/api/v1` every path of the service hangs under. */
function lacksVersionPrefix(apiUrl: string): boolean {
  if (!URL.canParse(apiUrl)) return false;
  return !/\/api\/v1\/?$/.test(new URL(apiUrl).pathname);
}

/**
 * Restates a failure of a `webhooks` subcommand with its fix: a read-only or rejected key and an
 * unknown id are the operator's to change (exit 2), an unreachable service is an outage (exit 1).
 * Anything not recognised is returned as it is.
 */
export function explainWebhookFailure(error: unknown, action: WebhookAction): unknown {
  const what = `webhooks ${action.name}`;
  if (error instanceof PermissionError) {
    return new ExplainedError(
      `${what}: the API key is read-only (403 ${error.code ?? "INSUFFICIENT_SCOPE"}): ${READ_ONLY_FIX}`,
      {
        cause: error,
      },
    );
  }
  if (error instanceof AuthenticationError) {
    return new ExplainedError(
      `${what}: the service at ${action.apiUrl} rejected the API key (401): check RETENTION_API_KEY; a revoked key must be replaced`,
      { cause: error },
    );
  }
  if (error instanceof NotFoundError) return explainNotFound(error, action, what);
  if (error instanceof InvalidRequestError) {
    return new ExplainedError(
      `${what}: the service refused the request (400): ${serviceSentence(error)}. ` +
        "An endpoint URL must be public HTTPS on the default port (443), not a private or local address (docs/webhooks.md)",
      { cause: error, exitCode: EXIT_USAGE },
    );
  }
  if (error instanceof ApiNetworkError || error instanceof ApiTimeoutError) {
    const maybeCreated =
      action.name === "register"
        ? ". The service may have created the endpoint all the same: run `retention-sync webhooks list` before registering again (delete a duplicate with `webhooks delete ID --yes`: its secret was never shown)"
        : "";
    return new ExplainedError(
      `${what}: the service at ${action.apiUrl} is unreachable (${error.message}): check RETENTION_API_URL and the network, then try again${maybeCreated}`,
      { cause: error },
    );
  }
  return error;
}

function explainNotFound(error: NotFoundError, action: WebhookAction, what: string): ExplainedError {
  if (lacksVersionPrefix(action.apiUrl)) {
    return new ExplainedError(
      `${what}: ${action.apiUrl} answered 404 for ${error.path}: RETENTION_API_URL must be the service's base URL including /api/v1 ` +
        "(e.g. https://retention.example.com/api/v1)",
      { cause: error, exitCode: EXIT_USAGE },
    );
  }
  if (action.id !== undefined) {
    return new ExplainedError(
      `${what}: no webhook endpoint ${action.id} for this API key's company (404): ` +
        "`retention-sync webhooks list` shows the registered ids",
      { cause: error, exitCode: EXIT_USAGE },
    );
  }
  return new ExplainedError(
    `${what}: ${action.apiUrl} answered 404 for ${error.path}: is RETENTION_API_URL the service's base URL including /api/v1?`,
    { cause: error, exitCode: EXIT_USAGE },
  );
}

/** The service's own sentence from an error answer, without the method-and-path prefix of ApiError. */
function serviceSentence(error: ApiError): string {
  const body = error.body;
  if (typeof body === "object" && body !== null && "error" in body && typeof body.error === "string") {
    return body.error.replace(/\.$/, "");
  }
  return error.message;
}
