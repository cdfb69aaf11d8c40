/** The erasure reaction on in-memory ports: what an erased customer leaves behind in orders, results and the call platform. */
import { describe, expect, it } from 'vitest';
import type { ListPosition } from '#shared/jobs/reaction-jobs.ts';
import { contentOf } from '#shared/orders/order.ts';
import { orderProcessing } from '#shared/orders/processing.ts';
import { domainReactions, type ReactionPorts } from '#shared/orders/reactions.ts';
import { versionAttributes } from '#shared/versioning/version-attributes.ts';
import { order, ports } from './memory-ports.ts';

const jobShape = {
  pk: 'T#acme#JOB#scrub-customer-orders#c1#2026-11-25T11:00:00.000Z',
  sk: 'JOB',
  entity: 'job',
  kind: 'scrub-customer-orders',
  tenant: 'acme',
  subject: 'c1',
  orders: 0,
  status: 'running',
};

function erasureSetup() {
  const processingPorts = ports('+4915100000000');
  const erased: string[] = [];
  processingPorts.callPlatforms.sandbox = {
    ...processingPorts.callPlatforms.sandbox,
    erase: async (r) => void erased.push(`${r.tenant}/${r.external_customer_id}`),
  };
  const withReference = (id: string, state: 'scheduled' | 'completed') => {
    const base = order(id);
    const contact_permission = { status: 'granted' as const, basis: 'prior_purchase' as const, reference: 'order-981' };
    return { ...base, processing_state: state, contact_permission, ...versionAttributes('1', contentOf({ ...base, contact_permission })) };
  };
  processingPorts.orders.orders.set('acme/active', withReference('active', 'scheduled'));
  processingPorts.orders.orders.set('acme/done', withReference('done', 'completed'));
  const forgotten: string[] = [];
  const advanced: { pages: number; next: ListPosition | null; processed: number }[] = [];
  const reactionPorts: ReactionPorts = {
    processing: orderProcessing(processingPorts),
    products: { read: async () => undefined },
    // Two pages: the job walks them one invocation each.
    orderIdsPage: async (_tenant, _filter, position) => (position.shard === 0 ? { ids: ['active'], next: { shard: 1 } } : { ids: ['done'], next: null }),
    jobs: { advance: async (job, next, page) => void advanced.push({ pages: job.pages, next, processed: page.orders }) },
    forgetResultScenario: async (pk) => void forgotten.push(pk),
  };
  return { processingPorts, reactionPorts, erased, forgotten, advanced };
}

describe('the erasure job', () => {
  it("scrubs every order of the customer page by page, forgets its results' scenario digit and asks the call platform to erase once", async () => {
    const { processingPorts, reactionPorts, erased, forgotten, advanced } = erasureSetup();
    const before = processingPorts.orders.orders.get('acme/done')!.content_sha256;
    const job = { ...jobShape, position: { shard: 0 }, pages: 0 };
    for (const reaction of domainReactions(reactionPorts)) await reaction.handle({ eventName: 'INSERT', newImage: job });
    // The job's change after its first page brings the second.
    const moved = { ...job, position: { shard: 1 }, pages: 1, orders: 1 };
    for (const reaction of domainReactions(reactionPorts)) await reaction.handle({ eventName: 'MODIFY', newImage: moved, oldImage: job });
    expect(advanced).toEqual([
      { pages: 0, next: { shard: 1 }, processed: 1 },
      { pages: 1, next: null, processed: 1 },
    ]);
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

  it('leaves alone an order another customer was created for, reached through a link its losing concurrent creation wrote ahead', async () => {
    const { processingPorts, reactionPorts } = erasureSetup();
    const strayed = { ...processingPorts.orders.orders.get('acme/active')!, external_customer_id: 'c2' };
    processingPorts.orders.orders.set('acme/active', strayed);
    const job = { ...jobShape, position: { shard: 0 }, pages: 0 };
    for (const reaction of domainReactions(reactionPorts)) await reaction.handle({ eventName: 'INSERT', newImage: job });
    expect(processingPorts.orders.orders.get('acme/active')).toEqual(strayed);
  });
});
