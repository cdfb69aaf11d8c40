/**
 * The reference's answers and events are one recorded run of the sandbox
 * (contract/recorded-examples.json, `npm run contract:record`): every operation has its answer,
 * each answer is about the very resource its request named, and the events tell one story, a
 * state chain the order really took, none of them a test event.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pathValues, type RecordedExamples } from '#contract/samples.ts';
import { ROUTES } from '#functions/routes.ts';
import { EVENT_TYPES } from '#shared/events/event-types.ts';
import { canTransition } from '#shared/orders/state-machine.ts';
import { repoRoot } from '../support/paths.ts';

const recorded = JSON.parse(readFileSync(join(repoRoot, 'contract/recorded-examples.json'), 'utf8')) as RecordedExamples;
const contract = JSON.parse(readFileSync(join(repoRoot, 'contract/openapi.json'), 'utf8')) as { paths: Record<string, Record<string, any>> };

/** The ids a request names (its path parameters and its body's top-level ids), by the field an answer carries them in. */
const ID_FIELDS: Record<string, string> = {
  externalOrderId: 'external_order_id',
  externalCustomerId: 'external_customer_id',
  externalProductId: 'external_product_id',
  externalRuleId: 'external_rule_id',
  deliveryId: 'delivery_id',
  listenSessionId: 'listen_session_id',
};

describe('the recorded examples', () => {
  it('answer every operation, each with the request it answers', () => {
    expect([...new Set(recorded.answers.map((a) => a.operationId))].sort()).toEqual(ROUTES.map((r) => r.operationId).sort());
    for (const answer of recorded.answers) {
      const route = ROUTES.find((r) => r.operationId === answer.operationId)!;
      expect(answer.method, answer.operationId).toBe(route.method);
      expect(Object.keys(pathValues(route.path, answer.path)), `${answer.path} is a ${route.path}`).toHaveLength((route.path.match(/\{/g) ?? []).length);
      expect(answer.status, answer.operationId).toBeGreaterThanOrEqual(200);
      expect(answer.status, answer.operationId).toBeLessThan(300);
    }
  });

  it('are about the resource their request names: the ids in the path and body are the ids in the answer', () => {
    const disagreements: string[] = [];
    for (const answer of recorded.answers) {
      const route = ROUTES.find((r) => r.operationId === answer.operationId)!;
      const named: Record<string, string> = {};
      // A replay answers with the new delivery, naming the one asked for in `replay_of`.
      const fieldOf = (parameter: string) =>
        answer.operationId === 'replayWebhookDelivery' && parameter === 'deliveryId' ? 'replay_of' : ID_FIELDS[parameter];
      for (const [parameter, value] of Object.entries(pathValues(route.path, answer.path))) if (fieldOf(parameter)) named[fieldOf(parameter)!] = value;
      for (const field of Object.values(ID_FIELDS)) {
        const inBody = (answer.body as Record<string, unknown> | undefined)?.[field];
        if (typeof inBody === 'string') named[field] = inBody;
      }
      const body = answer.answer as Record<string, unknown> | null;
      for (const [field, value] of Object.entries(named)) {
        if (body && field in body && body[field] !== value) disagreements.push(`${answer.operationId}: ${field} ${String(body[field])}, asked ${value}`);
      }
    }
    expect(disagreements).toEqual([]);
    // The order the example creates is the order the answer names, created.
    const created = recorded.answers.find((a) => a.operationId === 'createOrder' && a.status === 201)!;
    expect(created.answer).toMatchObject({ external_order_id: (created.body as { external_order_id: string }).external_order_id, outcome: 'created' });
  });

  it('shows in the contract the answers and path values recorded', () => {
    for (const answer of recorded.answers) {
      const route = ROUTES.find((r) => r.operationId === answer.operationId)!;
      const op = contract.paths[route.path]![route.method.toLowerCase()];
      expect(op.responses[String(answer.status)]?.content?.['application/json']?.example ?? null, answer.operationId).toEqual(answer.answer);
      for (const [name, value] of Object.entries(pathValues(route.path, answer.path)))
        expect(op.parameters.find((p: { name: string }) => p.name === name).example, `${answer.operationId} ${name}`).toBe(value);
    }
  });

  it('have one event of each type, none a test, each of an order the run created, states as the order took them', () => {
    expect(Object.keys(recorded.events).sort()).toEqual([...EVENT_TYPES].sort());
    for (const [type, event] of Object.entries(recorded.events) as [string, { event_type: string; test?: boolean; external_order_id: string }][]) {
      expect(event.event_type).toBe(type);
      expect(event.test, type).toBeUndefined();
      expect(recorded.orders, type).toContain(event.external_order_id);
    }
    const change = (recorded.events['commerce.order.status_changed.v1'] as { data: { previous_state: string | null; processing_state: string } }).data;
    expect(change.previous_state, 'a change from one state to another').not.toBeNull();
    expect(canTransition(change.previous_state as never, change.processing_state as never), `${change.previous_state} → ${change.processing_state}`).toBe(true);
    // The order's result and its events agree: the outcome the result shows is the one the result event carries.
    const result = recorded.answers.find((a) => a.operationId === 'getOrderResult')!.answer as { business_outcome: string };
    const ready = recorded.events['commerce.order.result_ready.v1'] as { data: { result: { business_outcome: string } } };
    expect(ready.data.result.business_outcome).toBe(result.business_outcome);
  });
});
