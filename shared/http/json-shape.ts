/**
 * A bound on the shape of a request body, checked before any schema sees it: no array longer
 * than any the contract allows, no nesting deeper than any the contract has, and a limit on
 * the values in all. It keeps validation's own work (and the list of what is wrong) in
 * proportion to what a valid request can hold, whatever a client sends within 2 MiB.
 */
import type { FieldError } from '../errors.ts';

export const JSON_LIMITS = {
  /** Above every array the contract documents (500 products, 250 order items, 100 variants or rule conditions). */
  arrayItems: 1_000,
  depth: 32,
  /** Values in the whole body: a full 500 × 100 product batch holds about 400,000. */
  values: 600_000,
} as const;

const pointerOf = (path: readonly (string | number)[]) => path.map((p) => `/${String(p).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/** The first place where the body leaves the bounds, or undefined. Iterative: no nesting can exhaust the stack. */
export function jsonShapeProblem(body: unknown, limits = JSON_LIMITS): FieldError | undefined {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: body, path: [] }];
  let values = 0;
  while (stack.length) {
    const { value, path } = stack.pop()!;
    if (++values > limits.values) return { pointer: '', message: `holds more than ${limits.values} values` };
    if (value === null || typeof value !== 'object') continue;
    if (path.length >= limits.depth) return { pointer: pointerOf(path), message: `nests deeper than ${limits.depth} levels` };
    if (Array.isArray(value)) {
      if (value.length > limits.arrayItems) return { pointer: pointerOf(path), message: `must have at most ${limits.arrayItems} items` };
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: [...path, i] });
    } else {
      for (const [key, child] of Object.entries(value)) stack.push({ value: child, path: [...path, key] });
    }
  }
  return undefined;
}
