/** The composition root of the mutating HTTP functions: the read ports and the table's idempotency records. */
import { idempotency, tableIdempotencyStore } from '#shared/http/middleware/idempotency.ts';
import type { OperationContract } from '#shared/http/operation.ts';
import { httpHandler, type PipelinePorts } from '#shared/http/pipeline.ts';
import { dynamoClient } from '#shared/storage/clients.ts';
import { config } from '../composition-root.ts';
import { routeById } from '../routes.ts';
import { type OperationImpl, readPorts } from './handler.ts';

const storeFor = tableIdempotencyStore(config.tableName, dynamoClient());
const ports: PipelinePorts = { ...readPorts, idempotency: (method) => idempotency(method, storeFor) };

/** The Lambda handler of the mutation (POST, PUT, PATCH, DELETE) `contract` names: its route's pipeline around `impl`. */
export const mutationHandler = <C extends OperationContract>(contract: C, impl: OperationImpl<C>) =>
  httpHandler(routeById(contract.operationId), ports, contract, impl);
