import { TypedEmitter } from "../../typed-emitter.js";

export type PullOutcome = "ok" | "not_modified" | "failed" | "refused";

/** What a roster pull tells its observers (metrics): each pull's source, outcome and duration. */
export interface PullEventMap {
  readonly pulled: { readonly source: string; readonly outcome: PullOutcome; readonly seconds: number };
}

export class PullEvents extends TypedEmitter<PullEventMap> {}
