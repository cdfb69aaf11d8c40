/**
 * The live call platform's adapter with the real `@aws-sdk/client-connect`, against the local
 * stand-in that speaks Connect's REST JSON protocol: what a dial sends, that a stop is sent once,
 * and what DescribeContact's answer becomes.
 */
import { ConnectClient } from '@aws-sdk/client-connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectStandIn, startConnectStandIn } from '#local/connect-stand-in.ts';
import type { AttemptKey } from '#shared/calls/call-platform.ts';
import { attemptReference, type ContactMap, connectCallPlatform } from '#shared/calls/connect/connect-platform.ts';
import { dialogScript } from '#shared/calls/dialog.ts';

let standIn: ConnectStandIn;
beforeAll(async () => {
  standIn = await startConnectStandIn();
});
afterAll(() => standIn.close());

function memoryContacts(): ContactMap & { items: Map<string, { contactId: string; reference: string; stopped: boolean }> } {
  const items = new Map<string, { contactId: string; reference: string; stopped: boolean }>();
  const keyOf = (k: AttemptKey) => `${k.tenant}/${k.external_order_id}/${k.attempt}`;
  return {
    items,
    async put(c) {
      if (!items.has(keyOf(c))) items.set(keyOf(c), { contactId: c.contactId, reference: c.reference, stopped: false });
    },
    async ofAttempt(k) {
      return items.get(keyOf(k));
    },
    async claimStop(k) {
      const item = items.get(keyOf(k));
      if (!item || item.stopped) return false;
      item.stopped = true;
      return true;
    },
  };
}

const script = dialogScript({
  storeName: 'Rösterei',
  orderedAt: '2026-11-24T09:00:00Z',
  timeZone: 'Europe/Berlin',
  locales: ['de-DE'],
  currency: 'EUR',
  lines: [{ title: 'Beans', quantity: 1, price: '9.99' }],
  total: '9.99',
});

function platform(contacts: ContactMap, campaignTraffic = false) {
  const client = new ConnectClient({ endpoint: standIn.endpoint, region: 'eu-central-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  return connectCallPlatform(
    client,
    { instanceId: 'inst-1', contactFlowId: 'flow-1', callerIds: { DE: '+4930000000', AT: '+431000000' }, campaignTraffic, stuckAfterSeconds: 600 },
    contacts,
  );
}

describe('the Connect call platform', () => {
  it('dials with a token of tenant, order and attempt, the market caller id and an opaque reference, and answers pending', async () => {
    const contacts = memoryContacts();
    const request = { tenant: 'acme', external_order_id: 'o-1', attempt: 1, phone: '+4915100000001', script, market: 'AT' };
    expect(await platform(contacts, true).startAttempt(request, new Date())).toBe('pending');
    const [mapped] = [...contacts.items.values()];
    const contact = standIn.contacts.get(mapped!.contactId)!;
    expect(contact).toMatchObject({
      instanceId: 'inst-1',
      destination: '+4915100000001',
      source: '+431000000',
      clientToken: attemptReference(request),
      trafficType: 'CAMPAIGN',
      attributes: { attempt_ref: attemptReference(request) },
    });
    // Nothing personal in the attributes: neither the number, the order id nor the tenant.
    expect(JSON.stringify(contact.attributes)).not.toMatch(/acme|o-1|4915100000001/);
  });

  it('sends exactly one StopContact however often a cancel comes, and none before the dial returned', async () => {
    const contacts = memoryContacts();
    const key = { tenant: 'acme', external_order_id: 'o-2', attempt: 1 };
    const live = platform(contacts);
    await live.cancel(key);
    await live.startAttempt({ ...key, phone: '+4915100000002', script }, new Date());
    const contactId = contacts.items.get('acme/o-2/1')!.contactId;
    await Promise.all([live.cancel(key), live.cancel(key), live.cancel(key)]);
    expect(standIn.contacts.get(contactId)!.stops).toBe(1);
  });

  it('reads what became of a contact from DescribeContact, through the disposition table', async () => {
    const contacts = memoryContacts();
    const key = { tenant: 'acme', external_order_id: 'o-3', attempt: 2 };
    const live = platform(contacts);
    await live.startAttempt({ ...key, phone: '+4915100000003', script }, new Date());
    expect(await live.outcomeOf(key)).toMatchObject({ ended: false });
    standIn.finish(contacts.items.get('acme/o-3/2')!.contactId, { connected: true, disconnectReason: 'CUSTOMER_DISCONNECT', detection: 'VOICEMAIL_BEEP' });
    expect(await live.outcomeOf(key)).toMatchObject({ ended: true, disposition: 'voicemail' });
    expect(await live.outcomeOf({ ...key, attempt: 3 })).toBeUndefined();
  });

  it('places one contact for an attempt whose dial Connect throttled and the SDK retried', async () => {
    const live = platform(memoryContacts());
    // Twice throttled, then placed: the SDK's own retries (three attempts) carry the dial through.
    standIn.throttleNextDials(2);
    expect(await live.startAttempt({ tenant: 'acme', external_order_id: 't-1', attempt: 1, phone: '+4915100000004', script }, new Date())).toBe('pending');
    const placed = [...standIn.contacts.values()].filter((c) => c.destination === '+4915100000004');
    // A throttled request placed nothing, so its retry is the attempt's only contact.
    expect(placed).toHaveLength(1);
  });
});
