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

/** Where a value sits: its key and its parent's frame (paths are built only for the answer). */
interface Frame {
  key: string | number;
  parent: number;
}

function pointerOf(frames: readonly Frame[], at: number): string {
  const path: (string | number)[] = [];
  for (let i = at; i > 0; i = frames[i]!.parent) path.unshift(frames[i]!.key);
  return path.map((p) => `/${String(p).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** Where the body leaves the bounds; `tooLarge` when it is larger (longer, fuller) than any request allows, not just deeper. */
export type ShapeProblem = FieldError & { tooLarge: boolean };

/** The first place where the body leaves the bounds, or undefined. Iterative: no nesting can exhaust the stack. */
export function jsonShapeProblem(body: unknown, limits = JSON_LIMITS): ShapeProblem | undefined {
  const tooManyValues: ShapeProblem = { pointer: '', message: `holds more than ${limits.values} values`, tooLarge: true };
  const frames: Frame[] = [{ key: '', parent: -1 }];
  const stack: [value: unknown, depth: number, frame: number][] = [[body, 0, 0]];
  let values = 0;
  while (stack.length) {
    const [value, depth, frame] = stack.pop()!;
    if (++values > limits.values) return tooManyValues;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= limits.depth) return { pointer: pointerOf(frames, frame), message: `nests deeper than ${limits.depth} levels`, tooLarge: false };
    if (Array.isArray(value)) {
      if (value.length > limits.arrayItems)
        return { pointer: pointerOf(frames, frame), message: `must have at most ${limits.arrayItems} items`, tooLarge: true };
      for (let i = value.length - 1; i >= 0; i--) {
        const child = value[i];
        if (child !== null && typeof child === 'object') stack.push([child, depth + 1, frames.push({ key: i, parent: frame }) - 1]);
        else if (++values > limits.values) return tooManyValues;
      }
    } else {
      for (const key in value) {
        const child = (value as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object') stack.push([child, depth + 1, frames.push({ key, parent: frame }) - 1]);
        else if (++values > limits.values) return tooManyValues;
      }
    }
  }
  return undefined;
}
