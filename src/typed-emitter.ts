type Listeners<M> = { [K in keyof M]?: Array<(payload: M[K]) => void> };

/**
 * A synchronous typed emitter: listeners run in the order they subscribed, before `emit` returns,
 * so an observer sees the daemon's state changes in the order they happen (the leader gauge is 0
 * before the next term can set it to 1).
 */
export class TypedEmitter<M> {
  private readonly listeners: Listeners<M> = {};

  /** Subscribes; returns the unsubscribe. */
  on<K extends keyof M>(name: K, listener: (payload: M[K]) => void): () => void {
    const list = this.listeners[name] ?? [];
    list.push(listener);
    this.listeners[name] = list;
    return () => {
      this.listeners[name] = (this.listeners[name] ?? []).filter((l) => l !== listener);
    };
  }

  emit<K extends keyof M>(name: K, payload: M[K]): void {
    for (const listener of this.listeners[name] ?? []) listener(payload);
  }
}
