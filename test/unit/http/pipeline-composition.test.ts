import { describe, expect, it } from 'vitest';
import type { Route } from '#shared/api/routes.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { httpHandler, type PipelinePorts } from '#shared/http/pipeline.ts';

const route = (method: Route['method']): Route => ({
  operationId: 'probe',
  method,
  path: '/probe',
  scope: 'commerce:read',
  handler: 'probe.ts',
  summary: 'probe',
  tag: 'Discovery',
});
const readPorts = { auth: {}, tenants: {} } as unknown as PipelinePorts;
const mutationPorts: PipelinePorts = { ...readPorts, idempotency: () => ({ before: async () => undefined }) };
const contract = defineOperation({ operationId: 'probe', responses: {} });
const impl = async () => ({ status: 200, body: {} });

describe('the pipeline of a route', () => {
  it('refuses to build a mutation without idempotency: a retried POST would run twice', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      expect(() => httpHandler(route(method), readPorts, contract, impl)).toThrow(/needs its idempotency/);
      expect(() => httpHandler(route(method), mutationPorts, contract, impl)).not.toThrow();
    }
  });

  it('builds a read without idempotency, whose bundle then leaves Powertools idempotency out', () => {
    expect(() => httpHandler(route('GET'), mutationPorts, contract, impl)).toThrow(/takes no idempotency/);
    expect(() => httpHandler(route('GET'), readPorts, contract, impl)).not.toThrow();
  });
});
