import { applyOrderChange, type OrderRepository, type StoredOrder } from './order.ts';

/**
 * The changes of one run that no call depends on (qualified, then scheduled), kept in memory
 * and written once by `flush`: one compare-and-set of the order whose log holds every status
 * event they produced, each under its own revision, instead of one write per state.
 */
export function pendingChanges(orders: OrderRepository) {
  let base: StoredOrder | undefined;
  let current: StoredOrder | undefined;
  let items: object[] = [];
  let at = new Date();
  const repository: OrderRepository = {
    read: orders.read,
    create: orders.create,
    commit: orders.commit,
    async write(order, change, now) {
      if (current && order.revision !== current.revision) throw new Error('a pending change must follow the one before it');
      const applied = applyOrderChange(order, change, now);
      base ??= order;
      current = applied.next;
      items = [...items, ...applied.items];
      at = now;
      return applied.next;
    },
  };
  const discard = () => {
    base = current = undefined;
    items = [];
  };
  return {
    repository,
    discard,
    /** Writes what is pending; the order as written (undefined when nothing was pending). */
    async flush(): Promise<StoredOrder | undefined> {
      if (!base || !current) return undefined;
      const [from, next, written] = [base, current, items];
      discard();
      return orders.commit(from, next, written, at);
    },
  };
}
