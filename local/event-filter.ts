/**
 * Lambda's event filtering, as an event source mapping applies its `FilterCriteria` before it
 * invokes the function: a record is handed over when any pattern matches it. Covers the rules
 * the template's patterns use (equals, `prefix`, `suffix`, `anything-but`, `exists`); any
 * other rule throws, so a new pattern must be taught here before the local runtime runs it.
 */
type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type Rule = Json;

function leafMatches(rule: Rule, value: Json | undefined): boolean {
  if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) return value !== undefined && value === rule;
  const [name, operand] = Object.entries(rule)[0] ?? [];
  switch (name) {
    case 'exists':
      return operand === (value !== undefined);
    case 'prefix':
      return typeof value === 'string' && value.startsWith(String(operand));
    case 'suffix':
      return typeof value === 'string' && value.endsWith(String(operand));
    case 'anything-but': {
      if (value === undefined) return false;
      if (operand && typeof operand === 'object' && !Array.isArray(operand)) return !leafMatches(operand as Rule, value);
      const excluded: Json[] = Array.isArray(operand) ? operand : [operand as Json];
      return !excluded.includes(value);
    }
    default:
      throw new Error(`Lambda filter rule "${name}" is not supported by the local runtime`);
  }
}

function matches(pattern: Record<string, Json>, record: Json | undefined): boolean {
  return Object.entries(pattern).every(([key, rules]) => {
    const field = record && typeof record === 'object' && !Array.isArray(record) ? record[key] : undefined;
    if (Array.isArray(rules)) {
      const values = Array.isArray(field) ? field : [field];
      return rules.some((rule) => values.some((value) => leafMatches(rule, value)));
    }
    return matches(rules as Record<string, Json>, field);
  });
}

const parsed = new Map<string, Record<string, Json>>();
const patternOf = (pattern: string) => {
  if (!parsed.has(pattern)) parsed.set(pattern, JSON.parse(pattern) as Record<string, Json>);
  return parsed.get(pattern)!;
};

/**
 * True when the record passes the filter criteria (no patterns: every record passes). The
 * record is read as it is: a copy of every record per pattern (a product image with 100
 * variants, several patterns) took the local runtime seconds of a catalog batch's CPU, which
 * on AWS the event source mapping spends outside the function.
 */
export function passesFilters(patterns: readonly string[], record: unknown): boolean {
  if (!patterns.length) return true;
  return patterns.some((pattern) => matches(patternOf(pattern), record as Json));
}
