/** The erasure reaction on in-memory ports: what an erased customer leaves behind in orders, results and the call platform. */
import { describe, expect, it } from 'vitest';
import { orderProcessing } from '#shared/orders/processing.ts';
import { domainReactions, type ReactionPorts } from '#shared/orders/reactions.ts';
import { versionAttributes } from '#shared/versioning/version-attributes.ts';
import { contentOf } from '#shared/orders/order.ts';
import { order, ports } from './memory-ports.ts';

function erasureSetup() {
  const processingPorts = ports('+4915100000000');
  const erased: string[] = [];
  processingPorts.callPlatform = { ...processingPorts.callPlatform, erase: async (r) => void erased.push(`${r.tenant}/${r.external_customer_id}`) };
  const withReference = (id: string, state: 'scheduled' | 'completed') => {
    const base = order(id);
    const contact_permission = { status: 'granted' as const, basis: 'prior_purchase' as const, reference: 'order-981' };
    return { ...base, processing_state: state, contact_permission, ...versionAttributes('1', contentOf({ ...base, contact_permission })) };
  };
  processingPorts.orders.orders.set('acme/active', withReference('active', 'scheduled'));
  processingPorts.orders.orders.set('acme/done', withReference('done', 'completed'));
  const forgotten: string[] = [];
  const reactionPorts: ReactionPorts = {
    processing: orderProcessing(processingPorts),
    products: { read: async () => undefined },
    orderIdsWhere: async function* () {
      yield 'active';
      yield 'done';
    },
    store: { writeBack: async () => undefined },
    putEventOnce: async () => undefined,
    forgetResultScenario: async (pk) => void forgotten.push(pk),
  };
  return { processingPorts, reactionPorts, erased, forgotten };
}

describe('the erasure reaction', () => {
  it("scrubs every order of the customer, forgets its results' scenario digit and asks the call platform to erase", async () => {
    const { processingPorts, reactionPorts, erased, forgotten } = erasureSetup();
    const before = processingPorts.orders.orders.get('acme/done')!.content_sha256;
    const change = {
      eventName: 'MODIFY' as const,
      newImage: { entity: 'customer', pk: 'T#acme#CUSTOMER#c1', external_customer_id: 'c1', anonymized_at: '2026-11-25T11:00:00Z' },
      oldImage: { entity: 'customer', pk: 'T#acme#CUSTOMER#c1', external_customer_id: 'c1' },
    };
    for (const reaction of domainReactions(reactionPorts)) await reaction.handle(change);
    const active = processingPorts.orders.orders.get('acme/active')!;
    const done = processingPorts.orders.orders.get('acme/done')!;
    expect(active).toMatchObject({ processing_state: 'rejected', state_reason: 'customer_anonymized' });
    expect(done.processing_state).toBe('completed');
    for (const o of [active, done]) expect(o.contact_permission).toEqual({ status: 'granted', basis: 'prior_purchase' });
    // The content hash no longer covers the erased reference.
    expect(done.content_sha256).not.toBe(before);
    expect(done.content_sha256).toBe(versionAttributes('1', contentOf(done)).content_sha256);
    expect(forgotten.sort()).toEqual(['T#acme#ORDER#active', 'T#acme#ORDER#done']);
    expect(erased).toEqual(['acme/c1']);
  });
});
