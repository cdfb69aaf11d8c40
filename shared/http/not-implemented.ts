/**
 * A route whose capability is not built yet answers 501 `not_implemented` through the full
 * pipeline (authentication, scope, idempotency), so the route table, the CDK app and the
 * contract are complete while the capability issues land one by one.
 */
import { NotImplementedError } from './errors.ts';
import { defineOperation } from './operation.ts';
import { httpHandler } from './pipeline.ts';

export function notImplementedOperation(operationId: string) {
  const contract = defineOperation({
    operationId,
    description: 'Not implemented yet in this build: answers 501 not_implemented.',
    responses: {},
    problems: ['not_implemented'],
  });
  const handler = httpHandler(contract, async () => {
    throw new NotImplementedError(`${operationId} is not implemented yet in this build.`);
  });
  return { contract, handler };
}
