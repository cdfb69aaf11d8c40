/**
 * `@aws-lambda-powertools/jmespath` for the bundles. Powertools idempotency imports the whole
 * JMESPath interpreter (about 23 KiB of a bundle, and its first search builds and runs its lexer,
 * parser and interpreter) only to select the fields `IDEMPOTENCY_JMESPATH` names: multi-select
 * lists of field names. This evaluates that one form, as JMESPath does, and throws for any
 * other; a unit test holds it to Powertools' own interpreter on the configured expressions
 * (test/unit/http/idempotency-jmespath.test.ts). Measured: 1.0 to 3.5 ms of a mutation's cold
 * start (README, performance).
 */
const MULTI_SELECT_LIST = /^\[\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*\]$/;

export function search(expression: string, data: unknown): unknown {
  const fields = MULTI_SELECT_LIST.exec(expression)?.[1]?.split(/\s*,\s*/);
  if (!fields) throw new Error(`The bundled JMESPath evaluates multi-select lists of field names only, not ${expression}`);
  if (data === null) return null;
  const record = Object.prototype.toString.call(data) === '[object Object]' ? (data as Record<string, unknown>) : undefined;
  return fields.map((field) => (record && field in record ? record[field] : null));
}

/** The custom functions Powertools hands every search: none of the expressions above calls one. */
export class PowertoolsFunctions {}
