/**
 * The composition root of the HTTP functions: the pipeline's ports, built once per instance,
 * and `readHandler`, which gives a read's handler its route from the route table. Mutations
 * are composed in `mutation-handler.ts`, with their idempotency: a read's bundle leaves it out.
 */
import { dynamoAuthPorts, takeRateToken } from '#shared/auth/dynamodb-adapters.ts';
import { keySecrets } from '#shared/auth/key-secret-deriver.ts';
import type { OperationContract, OperationInput, OperationResult } from '#shared/http/operation.ts';
import { httpHandler, type PipelinePorts } from '#shared/http/pipeline.ts';
import { config } from '../composition-root.ts';
import { routeById } from '../routes.ts';
import { tenantConfigOf } from '../tenant-configs.ts';

export const readPorts: PipelinePorts = {
  // The deriver is built on first use: importing a handler (the contract generator, a cold start) needs no key material.
  auth: dynamoAuthPorts({ cacheSeconds: config.authCacheSeconds, secrets: { secretFor: (keyId) => keySecrets().secretFor(keyId) } }),
  tenants: { tenantConfigOf, takeRateToken, now: () => new Date() },
  referenceUrl: config.referenceUrl,
};

export type OperationImpl<C extends OperationContract> = (input: OperationInput<C>) => Promise<OperationResult>;

/** The Lambda handler of the read (GET) `contract` names: its route's pipeline around `impl`. */
export const readHandler = <C extends OperationContract>(contract: C, impl: OperationImpl<C>) =>
  httpHandler(routeById(contract.operationId), readPorts, contract, impl);
