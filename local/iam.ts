/**
 * Evaluates an identity policy the way IAM does, for exactly the statement shapes the
 * synthesized template uses: `Effect`, `Action` and `Resource` (strings or lists, with `*` and
 * `?` wildcards) and conditions with the `StringEquals`, `StringLike` and `Bool` operators,
 * optionally set-qualified with `ForAnyValue:` / `ForAllValues:`. An explicit deny wins, then
 * an allow, else the request is implicitly denied (IAM's documented evaluation logic for one
 * identity policy without boundaries or session policies).
 *
 * A statement of any other shape (`NotAction`, `NotResource`, another operator) throws: a new
 * shape in the template must be taught here rather than silently allowed or denied.
 *
 * Why not a full simulator: `@cloud-copilot/iam-simulate` is AGPL-3.0; as a development-only
 * dependency that would be acceptable (nothing of it ships), but it evaluates far more than
 * the template can express and would still need this project's request mapping; these few
 * shapes are tested against AWS's rules in `test/unit/local/iam.test.ts`.
 */

export interface PolicyStatement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, string | string[] | boolean>>;
}

export interface AccessRequest {
  /** `service:Operation`, e.g. `dynamodb:PutItem`. */
  action: string;
  /** The ARN the action is on. */
  resource: string;
  /** Request context keys, e.g. `dynamodb:LeadingKeys` → the partition key values written. */
  context?: Record<string, readonly string[]>;
}

export type Decision = 'allowed' | 'explicitly denied' | 'implicitly denied';

const SUPPORTED = new Set(['Effect', 'Action', 'Resource', 'Condition', 'Sid']);
const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** IAM's wildcard match: `*` any run of characters, `?` one; action names ignore case, ARNs do not. */
export function wildcardMatch(pattern: string, value: string, ignoreCase = false): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`, ignoreCase ? 'is' : 's').test(value);
}

const OPERATORS: Record<string, (expected: string, actual: string) => boolean> = {
  StringEquals: (expected, actual) => expected === actual,
  StringLike: (expected, actual) => wildcardMatch(expected, actual),
  Bool: (expected, actual) => expected.toLowerCase() === actual.toLowerCase(),
};

function conditionHolds(qualifiedOperator: string, key: string, expected: string[], context: Record<string, readonly string[]>): boolean {
  const [qualifier, operatorName] = qualifiedOperator.includes(':') ? qualifiedOperator.split(':') : [undefined, qualifiedOperator];
  const operator = OPERATORS[operatorName!];
  if (!operator || (qualifier && qualifier !== 'ForAnyValue' && qualifier !== 'ForAllValues')) {
    throw new Error(`IAM condition operator ${qualifiedOperator} is not supported by the local evaluator`);
  }
  const actual = context[key];
  const matches = (value: string) => expected.some((e) => operator(e, value));
  if (qualifier === 'ForAnyValue') return (actual ?? []).some(matches);
  // ForAllValues holds for an absent or empty key (AWS's documented behaviour).
  if (qualifier === 'ForAllValues') return (actual ?? []).every(matches);
  // A single-valued operator on an absent key does not match.
  return actual !== undefined && actual.length === 1 && matches(actual[0]!);
}

function statementApplies(statement: PolicyStatement, request: AccessRequest): boolean {
  for (const member of Object.keys(statement)) {
    if (!SUPPORTED.has(member)) throw new Error(`IAM statement member ${member} is not supported by the local evaluator`);
  }
  if (!list(statement.Action).some((a) => wildcardMatch(a, request.action, true))) return false;
  if (!list(statement.Resource).some((r) => wildcardMatch(r, request.resource))) return false;
  for (const [operator, keys] of Object.entries(statement.Condition ?? {})) {
    for (const [key, expected] of Object.entries(keys)) {
      if (!conditionHolds(operator, key, list(expected).map(String), request.context ?? {})) return false;
    }
  }
  return true;
}

/** The decision for one request against one identity policy's statements. */
export function evaluate(statements: readonly PolicyStatement[], request: AccessRequest): Decision {
  const applying = statements.filter((s) => statementApplies(s, request));
  if (applying.some((s) => s.Effect === 'Deny')) return 'explicitly denied';
  return applying.some((s) => s.Effect === 'Allow') ? 'allowed' : 'implicitly denied';
}
