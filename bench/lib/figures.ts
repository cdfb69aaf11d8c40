/** A benchmark figure: the measured value beside the floor it is compared against. */
export interface Figure {
  suite: string;
  name: string;
  value: number;
  unit: string;
  /** The same work done the cheapest way we know (the floor), in the same unit. */
  floor: number | null;
  floor_label: string | null;
  /** value / floor. */
  ratio: number | null;
  /** The ratio the figure must reach: at most (lower is better) or at least (higher is better). */
  target: number | null;
  direction: 'at_most' | 'at_least' | null;
  met: boolean | null;
  note?: string;
}

export function figure(f: {
  suite: string;
  name: string;
  value: number;
  unit: string;
  floor?: { value: number; label: string };
  target?: { ratio: number; direction: 'at_most' | 'at_least' };
  note?: string;
}): Figure {
  const ratio = f.floor ? round(f.value / f.floor.value, 3) : null;
  const met = f.target && ratio !== null ? (f.target.direction === 'at_most' ? ratio <= f.target.ratio : ratio >= f.target.ratio) : null;
  return {
    suite: f.suite,
    name: f.name,
    value: round(f.value, 3),
    unit: f.unit,
    floor: f.floor ? round(f.floor.value, 3) : null,
    floor_label: f.floor?.label ?? null,
    ratio,
    target: f.target?.ratio ?? null,
    direction: f.target?.direction ?? null,
    met,
    ...(f.note ? { note: f.note } : {}),
  };
}

export const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
