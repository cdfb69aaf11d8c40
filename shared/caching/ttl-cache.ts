/**
 * A tiny per-instance read-through cache. Lambda instances live for minutes, so caching
 * keys and tenant configuration for a few seconds saves a read on nearly every request.
 */
export function ttlCache<V>(load: (key: string) => Promise<V>, ttlMs: number, now: () => number = Date.now) {
  const entries = new Map<string, { value: Promise<V>; expiresAt: number }>();
  return {
    get(key: string): Promise<V> {
      const hit = entries.get(key);
      if (hit && hit.expiresAt > now()) return hit.value;
      const value = load(key);
      entries.set(key, { value, expiresAt: now() + ttlMs });
      // A failed load must not be cached.
      value.catch(() => entries.delete(key));
      if (entries.size > 10_000) entries.delete(entries.keys().next().value as string);
      return value;
    },
    clear: () => entries.clear(),
  };
}
