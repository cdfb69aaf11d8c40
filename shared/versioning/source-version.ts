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

/**
 * An instant as (epoch ms of its whole second, its decimal fraction without trailing zeros).
 * The fraction is never left to Date.parse, which misreads more than three digits
 * (`00.0800000000` parses as 800 ms); as digit strings without trailing zeros, fractions
 * compare correctly by their characters, whatever their precision.
 */
function instant(value: string): [number, string] | undefined {
  if (!RFC3339.test(value)) return undefined;
  const ms = Date.parse(value.replace(' ', 'T').replace(/\.\d+/, ''));
  if (Number.isNaN(ms)) return undefined;
  return [ms, (/\.(\d+)/.exec(value)?.[1] ?? '').replace(/0+$/, '')];
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

export type VersionKind = 'integer' | 'instant' | 'string';

const INSTANT_SECONDS_OFFSET = 10n ** 12n;

/**
 * A string key whose byte order (DynamoDB's order for strings) is the order of
 * `compareSourceVersions` among versions of the same kind, so the version check can be the
 * condition of the write itself. Versions of different kinds compare by code points, which
 * is the order of the raw strings, so a condition falls back to `source_version` for them.
 */
export function sortableVersion(value: string): { kind: VersionKind; key: string } {
  if (DIGITS.test(value)) return { kind: 'integer', key: BigInt(value).toString().padStart(40, '0') };
  const at = instant(value);
  if (at) {
    const seconds = BigInt(Math.floor(at[0] / 1000)) + INSTANT_SECONDS_OFFSET;
    // Offsets shift whole minutes, so the written fraction is the instant's fraction.
    return { kind: 'instant', key: seconds.toString().padStart(13, '0') + (at[1] ? `.${at[1]}` : '') };
  }
  return { kind: 'string', key: value };
}
