import type { DurableQueue, KeySet, KeyValueNamespace, StoreScope } from "./store-types.js";

/**
 * Outside a transaction both engines hand out namespaces, queues and key sets from one scope over
 * their connection or pool; inside one, the transaction's own scope. This holds the first part once.
 */
export abstract class ScopeDelegate {
  protected abstract readonly scope: StoreScope;

  namespace(name: string): KeyValueNamespace {
    return this.scope.namespace(name);
  }

  queue<T, H = never>(name: string): DurableQueue<T, H> {
    return this.scope.queue<T, H>(name);
  }

  keySet(name: string): KeySet {
    return this.scope.keySet(name);
  }
}
