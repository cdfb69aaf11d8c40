/**
 * The live call platform's adapter with the real `@aws-sdk/client-connect`, against the local
 * stand-in that speaks Connect's REST JSON protocol: what a dial sends, that a stop is sent once,
 * and what DescribeContact's answer becomes.
 */
import { ConnectClient } from '@aws-sdk/client-connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectStandIn, startConnectStandIn } from '#local/connect-stand-in.ts';
import { type AttemptKey, attemptReference, DialRefused, DialThrottled } from '#shared/calls/call-platform.ts';
import { connectCallPlatform } from '#shared/calls/connect/connect-platform.ts';
import type { AttemptOfReference, ContactMap } from '#shared/calls/connect/contact-store.ts';
import { dialogScript } from '#shared/calls/dialog.ts';

let standIn: ConnectStandIn;
beforeAll(async () => {
  standIn = await startConnectStandIn({ allowedCountries: ['DE', 'AT'] });
});
afterAll(() => standIn.close());

type Item = AttemptOfReference & { stopped: boolean };
/** The contact map in memory: attempts by key, each with its reference, contact and decision. */
function memoryContacts(): ContactMap & { items: Map<string, Item> } {
  const items = new Map<string, Item>();
  const keyOf = (k: AttemptKey) => `${k.tenant}/${k.external_order_id}/${k.attempt}`;
  const find = (match: (i: Item) => boolean) => [...items.values()].find(match);
  return {
    items,
    async prepare(a) {
      if (!items.has(keyOf(a))) items.set(keyOf(a), { ...a, stopped: false });
    },
    async placed(a) {
      items.get(keyOf(a))!.contactId = a.contactId;
    },
    async byReference(reference) {
      return find((i) => i.reference === reference);
    },
    async ofAttempt(k) {
      const item = items.get(keyOf(k));
      return item?.contactId ? { contactId: item.contactId, reference: item.reference } : undefined;
    },
    async byContact(id) {
      return find((i) => i.contactId === id);
    },
    async claimStop(k) {
      const item = items.get(keyOf(k));
      if (!item?.contactId || item.stopped) return false;
      item.stopped = true;
      return true;
    },
    async decide(reference, decision) {
      const item = find((i) => i.reference === reference);
      if (item && !item.decision) item.decision = decision;
    },
    async hear(reference) {
      const item = find((i) => i.reference === reference);
      if (item) item.heard = true;
    },
    async ofCustomer(tenant, customer) {
      return [...items.values()].filter((i) => i.tenant === tenant && i.external_customer_id === customer);
    },
    async forget(a) {
      items.delete(keyOf(a));
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
    { dialer: client, client },
    { instanceId: 'inst-1', contactFlowId: 'flow-1', callerIds: { DE: '+4930000000', AT: '+431000000' }, campaignTraffic, stuckAfterSeconds: 600 },
    contacts,
  );
}

describe('the Connect call platform', () => {
  it('dials with a token of tenant, order and attempt, the market caller id and an opaque reference, and answers pending', async () => {
    const contacts = memoryContacts();
    const request = { tenant: 'acme', external_order_id: 'o-1', attempt: 1, phone: '+4915100000001', script, market: 'AT', external_customer_id: 'c-1' };
    expect(await platform(contacts, true).startAttempt(request, new Date())).toBe('pending');
    const [mapped] = [...contacts.items.values()];
    const contact = standIn.contacts.get(mapped!.contactId!)!;
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
    await live.startAttempt({ ...key, external_customer_id: 'c-1', phone: '+4915100000002', script, market: 'DE' }, new Date());
    const contactId = contacts.items.get('acme/o-2/1')!.contactId!;
    await Promise.all([live.cancel(key), live.cancel(key), live.cancel(key)]);
    expect(standIn.contacts.get(contactId)!.stops).toBe(1);
  });

  it('reads what became of a contact from DescribeContact, through the disposition table', async () => {
    const contacts = memoryContacts();
    const key = { tenant: 'acme', external_order_id: 'o-3', attempt: 2 };
    const live = platform(contacts);
    await live.startAttempt({ ...key, external_customer_id: 'c-1', phone: '+4915100000003', script, market: 'DE' }, new Date());
    const now = new Date();
    expect(await live.outcomeOf!(key, now)).toBe('ongoing');
    standIn.finish(contacts.items.get('acme/o-3/2')!.contactId!, { connected: true, disconnectReason: 'CUSTOMER_DISCONNECT', detection: 'VOICEMAIL_BEEP' });
    expect(await live.outcomeOf!(key, now)).toMatchObject({ call_disposition: 'voicemail' });
    expect(await live.outcomeOf!({ ...key, attempt: 3 }, now)).toBeUndefined();
  });

  it("reports an answered call's decision kept from the flow, and never a decision for a call not answered", async () => {
    const contacts = memoryContacts();
    const live = platform(contacts);
    const answered = { tenant: 'acme', external_order_id: 'o-4', attempt: 1 };
    await live.startAttempt({ ...answered, external_customer_id: 'c-1', phone: '+4915100000005', script, market: 'DE' }, new Date());
    const { contactId, reference } = contacts.items.get('acme/o-4/1')!;
    await contacts.decide(reference, 'declined');
    standIn.finish(contactId!, { connected: true, disconnectReason: 'CONTACT_FLOW_DISCONNECT' });
    expect(await live.outcomeOf!(answered, new Date())).toMatchObject({ call_disposition: 'answered', decision: 'declined' });
  });

  it("erases a customer's contacts: their reference blanked in Connect, their items gone", async () => {
    const contacts = memoryContacts();
    const live = platform(contacts);
    await live.startAttempt(
      { tenant: 'acme', external_order_id: 'o-5', attempt: 1, external_customer_id: 'c-9', phone: '+4915100000006', script, market: 'DE' },
      new Date(),
    );
    await live.startAttempt(
      { tenant: 'acme', external_order_id: 'o-6', attempt: 1, external_customer_id: 'c-8', phone: '+4915100000007', script, market: 'DE' },
      new Date(),
    );
    const erased = contacts.items.get('acme/o-5/1')!.contactId!;
    await live.erase({ tenant: 'acme', external_customer_id: 'c-9' });
    expect(standIn.contacts.get(erased)!.attributes).toEqual({ attempt_ref: '' });
    expect([...contacts.items.keys()]).toEqual(['acme/o-6/1']);
  });

  it('places one contact for an attempt whose dial Connect throttled and the SDK retried', async () => {
    const live = platform(memoryContacts());
    // Twice throttled, then placed: the SDK's own retries (three attempts) carry the dial through.
    standIn.throttleNextDials(2);
    const dial = { tenant: 'acme', external_order_id: 't-1', attempt: 1, external_customer_id: 'c-1', phone: '+4915100000004', script, market: 'DE' };
    expect(await live.startAttempt(dial, new Date())).toBe('pending');
    const placed = [...standIn.contacts.values()].filter((c) => c.destination === '+4915100000004');
    // A throttled request placed nothing, so its retry is the attempt's only contact.
    expect(placed).toHaveLength(1);
  });
});

describe('a dial Connect keeps throttling', () => {
  it('is refused as DialThrottled, having placed nothing', async () => {
    const live = platform(memoryContacts());
    standIn.throttleNextDials(10);
    const dial = { tenant: 'acme', external_order_id: 't-2', attempt: 1, external_customer_id: 'c-1', phone: '+4915100000008', script, market: 'DE' };
    await expect(live.startAttempt(dial, new Date())).rejects.toBeInstanceOf(DialThrottled);
    standIn.throttleNextDials(0);
    expect([...standIn.contacts.values()].filter((c) => c.destination === '+4915100000008')).toEqual([]);
  });

  it("dials nothing for a market the deployment has no caller id for: its customers never see another country's number", async () => {
    const live = platform(memoryContacts());
    const dial = { tenant: 'acme', external_order_id: 't-3', attempt: 1, external_customer_id: 'c-1', phone: '+33612345678', script, market: 'FR' };
    await expect(live.startAttempt(dial, new Date())).rejects.toBeInstanceOf(DialRefused);
    expect([...standIn.contacts.values()].filter((c) => c.destination === '+33612345678')).toEqual([]);
  });
});
