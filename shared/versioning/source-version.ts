/**
 * source_version ordering (contract-decisions section 3): decimal digit strings (up to 40
 * digits) compare as integers; otherwise two RFC 3339 timestamps compare as instants;
 * otherwise strings compare by Unicode code points.
 */
const DIGITS = /^\d{1,40}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

const byCodePoints = (a: string, b: string): -1 | 0 | 1 => {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
};

/** Sub-millisecond digits matter too: instants compare as (epoch ms, fraction beyond ms). */
function instant(value: string): [number, string] | undefined {
  if (!RFC3339.test(value)) return undefined;
  const ms = Date.parse(value.replace(' ', 'T'));
  if (Number.isNaN(ms)) return undefined;
  const fraction = /\.(\d+)/.exec(value)?.[1] ?? '';
  return [ms, fraction.slice(3).padEnd(9, '0')];
}

export function compareSourceVersions(a: string, b: string): -1 | 0 | 1 {
  if (DIGITS.test(a) && DIGITS.test(b)) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x === y ? 0 : x < y ? -1 : 1;
  }
  const ia = instant(a);
  const ib = instant(b);
  if (ia && ib) {
    if (ia[0] !== ib[0]) return ia[0] < ib[0] ? -1 : 1;
    return ia[1] === ib[1] ? 0 : ia[1] < ib[1] ? -1 : 1;
  }
  return byCodePoints(a, b);
}
