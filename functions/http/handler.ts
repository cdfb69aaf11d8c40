/**
 * The composition root of the HTTP functions: the pipeline's ports, built once per
 * instance, and `httpHandler`, which gives each handler its route from the route table.
 */
import { dynamoAuthPorts, takeRateToken } from '#shared/auth/dynamodb-adapters.ts';
import { tableIdempotencyStore } from '#shared/http/middleware/idempotency.ts';
import type { OperationContract, OperationInput, OperationResult } from '#shared/http/operation.ts';
import { httpHandler as pipeline, type PipelinePorts } from '#shared/http/pipeline.ts';
import { dynamoClient, keySecrets } from '#shared/storage/clients.ts';
import { config } from '../composition-root.ts';
import { tenantConfigOf } from '../tenant-configs.ts';
import { routeById } from '../routes.ts';

const ports: PipelinePorts = {
  // The deriver is built on first use: importing a handler (the contract generator, a cold start) needs no key material.
  auth: dynamoAuthPorts({ cacheSeconds: config.authCacheSeconds, secrets: { secretFor: (keyId) => keySecrets().secretFor(keyId) } }),
  tenants: { tenantConfigOf, takeRateToken, now: () => new Date() },
  idempotencyStore: tableIdempotencyStore(config.tableName, dynamoClient()),
  costMetering: config.costMetering,
};

/** The Lambda handler of the operation `contract` names: its route's pipeline around `impl`. */
export const httpHandler = <C extends OperationContract>(contract: C, impl: (input: OperationInput<C>) => Promise<OperationResult>) =>
  pipeline(routeById(contract.operationId), ports, contract, impl);
