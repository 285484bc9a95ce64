import type { IncomingMessage, ServerResponse } from "node:http";
import type { Refuse } from "../guarded-server.js";
import type { Logger } from "../logger.js";
import { verifySlackSignature } from "./verify-slack-signature.js";

/** Slack's interactivity payloads are small; anything bigger is not Slack. */
export const MAX_INTERACTIVITY_BODY_BYTES = 256 * 1024;

export interface HttpEndpointOptions {
  readonly signingSecret: string;
  readonly logger: Logger;
  /** Only the leader applies presses (a standby answers 503; Slack shows the user an error). */
  readonly leading: () => boolean;
  readonly receive: (body: unknown, ack: () => Promise<void>) => Promise<unknown>;
  readonly now?: () => number;
}

/** The body, or why there is none: too large, or the connection ended first (the client left or was cut off). */
type Body = { readonly text: string } | "too_large" | "gone";

function readBody(req: IncomingMessage): Promise<Body> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_INTERACTIVITY_BODY_BYTES) {
        // The rest is not read: the answer closes the connection.
        req.off("data", onData);
        req.pause();
        resolve("too_large");
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.on("end", () => resolve({ text: Buffer.concat(chunks).toString("utf8") }));
    req.on("error", () => resolve("gone"));
    req.on("close", () => resolve("gone"));
  });
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * The optional HTTP mode: Slack POSTs `payload=<json>` (form-encoded) to the Request URL. The
 * signature is checked over the raw body before anything is parsed; the answer (200) goes out
 * once the press is journaled, as Socket Mode's ack does.
 */
export function slackInteractivityHandler(options: HttpEndpointOptions) {
  const now = options.now ?? Date.now;
  return async (req: IncomingMessage, res: ServerResponse, refuse: Refuse): Promise<void> => {
    if (req.method !== "POST") {
      refuse("wrong_method");
      res.writeHead(405, { allow: "POST" }).end();
      return;
    }
    const read = await readBody(req);
    // Nobody to answer: the client left, or a deadline cut it off (counted by the server).
    if (read === "gone") return;
    if (read === "too_large") {
      refuse("too_large");
      res.writeHead(413, { connection: "close" }).end();
      return;
    }
    const raw = read.text;
    const check = verifySlackSignature({
      secret: options.signingSecret,
      rawBody: raw,
      timestamp: header(req, "x-slack-request-timestamp"),
      signature: header(req, "x-slack-signature"),
      nowMs: now(),
    });
    if (!check.ok) {
      refuse(check.reason === "stale" ? "stale_timestamp" : "bad_signature", check.reason);
      res.writeHead(401, { "content-type": "text/plain" }).end(`signature ${check.reason}\n`);
      return;
    }
    if (!options.leading()) {
      res.writeHead(503, { "content-type": "text/plain" }).end("standby: only the leader answers buttons\n");
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(new URLSearchParams(raw).get("payload") ?? "");
    } catch {
      res.writeHead(400, { "content-type": "text/plain" }).end("expected payload=<json>\n");
      return;
    }
    let answered = false;
    const ack = async () => {
      if (answered) return;
      answered = true;
      res.writeHead(200).end();
    };
    try {
      await options.receive(body, ack);
    } catch (error) {
      options.logger.error({ err: error }, "a Slack interactivity request could not be handled");
      if (!answered) {
        answered = true;
        res.writeHead(500).end();
      }
      return;
    }
    await ack();
  };
}
