/**
 * Validates path parameters, query and body with the operation's zod schemas. A refusal is
 * kept for the handler to throw rather than thrown here: a rejected input is an answer the
 * idempotency record must keep, and only answers the handler gives are kept.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { NotFoundError, PayloadTooLargeError, ValidationError } from '../../errors.ts';
import { jsonShapeProblem } from '../json-shape.ts';
import type { OperationContract } from '../operation.ts';
import { parseOrThrow } from '../validation.ts';
import type { HttpMiddleware, ValidatedInput } from './types.ts';

function singleValuedQuery(event: APIGatewayProxyEvent): Record<string, string> {
  const out: Record<string, string> = {};
  const repeated: string[] = [];
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if ((values?.length ?? 0) > 1) repeated.push(name);
    if (values?.[0] !== undefined) out[name] = values[0];
  }
  if (repeated.length) throw new ValidationError(repeated.map((name) => ({ pointer: `query:${name}`, message: 'must appear at most once' })));
  return out;
}

function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new ValidationError([{ pointer: '', message: 'the body is not valid JSON' }]);
  }
  const problem = jsonShapeProblem(parsed);
  // More items or values than any request the contract allows is a size, whatever the bytes: a
  // client that splits a batch on 413 must see 413 for 1,001 small products as for 501 large ones.
  if (problem?.tooLarge)
    throw new PayloadTooLargeError(
      `${problem.pointer ? `\`${problem.pointer}\`` : 'The body'} ${problem.message}: larger than any request the contract allows.`,
    );
  if (problem)
    throw new ValidationError(
      [{ pointer: problem.pointer, message: problem.message }],
      'The request body is nested deeper than any request the contract allows.',
    );
  return parsed;
}

/**
 * A path whose id cannot name anything names nothing: 404, whatever the shape of the id (as
 * Stripe answers "No such …"), never a 422 that would tell ids of one shape from another.
 */
function pathParameters(contract: OperationContract, event: APIGatewayProxyEvent): unknown {
  if (!contract.params) return undefined;
  try {
    return parseOrThrow(contract.params, event.pathParameters ?? {}, 'path');
  } catch (error) {
    if (error instanceof ValidationError) throw new NotFoundError('Nothing exists at this path.');
    throw error;
  }
}

export function validateInput(contract: OperationContract, event: APIGatewayProxyEvent, body: Buffer): ValidatedInput {
  const bodySchema = contract.bodyEnvelope ?? contract.body;
  return {
    params: pathParameters(contract, event),
    query: contract.query ? parseOrThrow(contract.query, singleValuedQuery(event), 'query') : undefined,
    body: bodySchema ? parseOrThrow(bodySchema, parseJsonBody(body), 'body') : undefined,
  };
}

export const validation = (contract: OperationContract): HttpMiddleware => ({
  before: ({ event, context: { http } }) => {
    if (http.replay) return;
    try {
      http.input = { ok: true, value: validateInput(contract, event, http.body) };
    } catch (error) {
      http.input = { ok: false, error };
    }
  },
});
