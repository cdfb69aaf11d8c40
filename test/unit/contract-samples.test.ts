/**
 * The contract carries an example for every request body, every success answer and every
 * event, and each is what its schema (strictly: no undeclared member) accepts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { violationsAt } from '../support/contract.ts';
import { repoRoot } from '../support/paths.ts';

const contract = JSON.parse(readFileSync(join(repoRoot, 'contract/openapi.json'), 'utf8')) as Record<string, any>;

const operations = Object.entries(contract.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({ path, method, op })),
);

describe('the examples in the contract', () => {
  it.each(operations.map((o) => [o.op.operationId, o] as const))(
    '%s: a request body example and an answer example its schemas accept',
    (_id, { path, method, op }) => {
      const found: string[] = [];
      const body = op.requestBody?.content?.['application/json'];
      if (body) {
        expect(body.example, 'request example').toBeDefined();
        found.push(...violationsAt(['paths', path, method, 'requestBody', 'content', 'application/json', 'schema'], body.example).map((v) => `request ${v}`));
      }
      const success = Object.entries(op.responses as Record<string, any>).filter(([status, r]) => status.startsWith('2') && r.content?.['application/json']);
      for (const [status, response] of success) {
        expect(response.content['application/json'].example, `${status} example`).toBeDefined();
        found.push(
          ...violationsAt(
            ['paths', path, method, 'responses', status, 'content', 'application/json', 'schema'],
            response.content['application/json'].example,
          ).map((v) => `${status} ${v}`),
        );
      }
      expect(found).toEqual([]);
    },
  );

  it.each(Object.keys(contract.webhooks))('%s: an example payload its schema accepts', (type) => {
    const example = contract.webhooks[type].post.requestBody.content['application/json'].example;
    expect(example?.event_type).toBe(type);
    expect(violationsAt(['webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema'], example)).toEqual([]);
  });

  it('shows no bound of ±2^53', () => {
    expect(JSON.stringify(contract)).not.toContain('9007199254740991');
  });
});
