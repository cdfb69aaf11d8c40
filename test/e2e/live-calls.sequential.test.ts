/**
 * Live calls end to end on a runtime of its own with `CALL_PLATFORM=connect`: a live tenant's
 * orders go through the Connect adapter (the real SDK client against the stand-in), the
 * deployed flow JSON run by the interpreter, the dialog function invoked under its policy and
 * timeout, Connect's contact events through the local EventBridge bus routed by the template's
 * rule, and the contact-events worker. Each sandbox scenario's customer ends as it does in the
 * sandbox; duplicated, reordered, delayed and lost events record exactly one attempt per dial;
 * cancels stop a call once and a cancel racing the dial places no conversation; an erasure
 * blanks the contacts and forgets them.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BenchKey, send } from '#bench/lib/client.ts';
import { LOCAL_CONNECT_INSTANCE_ARN } from '#local/deployment.ts';
import { captureJsonLogs } from '#local/log-capture.ts';
import { type LocalStack, startLocalStack } from '#local/stack.ts';
import { eventually } from '../support/eventually.ts';
import { CALL_NOW_CONFIG, customerBody, orderBody } from '../support/order-fixtures.ts';
import { ownOrderTenant } from '../support/own-tenant.ts';

/** Live calls in flight at most: the instance's quota the stack is given. */
const QUOTA = 4;

let stack: LocalStack;
let live: BenchKey;
const logFile = join(mkdtempSync(join(tmpdir(), 'live-calls-logs-')), 'handlers.ndjson');
const restoreLogs = captureJsonLogs(logFile);
/** Every number a test dialled: none may reach a log line. */
const dialled: string[] = [];

/** The sandbox scenarios' results (the sandbox-scenarios suite holds the sandbox to the same table). */
const SCENARIOS = [
  { digit: '0', calls: ['answered'], outcome: 'confirmed', total: '19.98' },
  { digit: '1', calls: ['no_answer', 'no_answer', 'no_answer'], outcome: 'unreachable', total: '19.98' },
  { digit: '2', calls: ['no_answer', 'answered'], outcome: 'confirmed', total: '19.98' },
  { digit: '3', calls: ['answered'], outcome: 'declined', total: '19.98' },
  { digit: '4', calls: ['answered'], outcome: 'modified', total: '49.00' },
  { digit: '5', calls: ['busy', 'answered'], outcome: 'confirmed', total: '19.98' },
  { digit: '6', calls: ['answered'], outcome: 'confirmed', total: '19.98' },
  { digit: '7', calls: ['answered'], outcome: 'confirmed', total: '19.98' },
  { digit: '8', calls: ['answered'], outcome: 'confirmed', total: '19.98' },
  { digit: '9', calls: ['invalid_number'], outcome: 'invalid_number', total: '19.98' },
];

beforeAll(async () => {
  stack = await startLocalStack({
    env: {
      CALL_PLATFORM: 'connect',
      // The instance's quota of concurrent calls, as the platform team set it (and the stand-in's): low enough to be reached.
      CONNECT_CONCURRENT_CALLS: String(QUOTA),
      // The deadline at which a call whose events were lost is asked after (DescribeContact).
      CALL_STUCK_AFTER_SECONDS: '10',
      CALL_RETRY_DELAY_SECONDS: '1',
      AUTH_CACHE_SECONDS: '1',
      // Every line a function writes, so that no dialled number in any of them goes unseen.
      POWERTOOLS_LOG_LEVEL: 'INFO',
    },
    callSweepEveryMs: 500,
  });
  const markets = [...CALL_NOW_CONFIG.markets, { country: 'AT', locale_default: 'de-AT', calling_days: [1, 2, 3, 4, 5, 6, 7] }];
  live = await ownOrderTenant(stack.baseUrl, 'live', { ...CALL_NOW_CONFIG, markets, mode: 'live' }, 'connect');
  expect(live.keyId).toMatch(/^key_live_/);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  restoreLogs();
  expect(stack?.refusedCalls ?? []).toEqual([]);
  // Every Connect action the template grants is one this suite's calls needed, and none was refused.
  const granted = new Set(
    [...(stack?.deployment.functions.values() ?? [])].flatMap((fn) =>
      fn.statements.flatMap((st) => [st.Action].flat()).filter((action): action is string => String(action).startsWith('connect:')),
    ),
  );
  const used = new Set([...(stack?.usedActions ?? [])].map((entry) => entry.split(' ')[1]!).filter((action) => action.startsWith('connect:')));
  expect([...used].sort()).toEqual([...granted].sort());
  const logs = readFileSync(logFile, 'utf8');
  expect(logs).toContain('call attempt');
  for (const phone of dialled) expect(logs, 'a dialled number in the logs').not.toContain(phone.slice(1));
});

/** A number of its own for each order (the simulated customer counts how often a number was rung), ending in the scenario's digit. */
// A German mobile number (0151 and eight digits), the last one the scenario's.
const numberEnding = (digit: string) => `+49151${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}${digit}`;

async function placeOrder(digit: string, phone = numberEnding(digit), order: Record<string, unknown> = {}) {
  const id = `o-${randomUUID().slice(0, 8)}`;
  const customer = `c-${id}`;
  dialled.push(phone);
  expect((await send(stack.baseUrl, live, 'PUT', `/customers/${customer}`, customerBody(phone))).status).toBe(200);
  expect((await send(stack.baseUrl, live, 'POST', '/orders', { ...orderBody(id, customer), ...order })).status).toBe(201);
  return { id, customer, phone };
}

const finished = (id: string, timeoutMs = 60_000) =>
  eventually(
    async () => (await send(stack.baseUrl, live, 'GET', `/orders/${id}`)).body,
    (order) => ['completed', 'cancelled', 'rejected'].includes(order?.processing_state),
    { timeoutMs, everyMs: 250 },
  );

const attemptsOf = async (id: string) =>
  ((await send(stack.baseUrl, live, 'GET', `/orders/${id}/calls`)).body.data as { attempt: number; call_disposition: string }[]).map((a) => [
    a.attempt,
    a.call_disposition,
  ]);

const contactsTo = (phone: string) => [...stack.connect!.standIn.contacts.values()].filter((c) => c.destination === phone);

async function expectScenario(s: (typeof SCENARIOS)[number], timeoutMs?: number) {
  const { id, phone } = await placeOrder(s.digit);
  const order = await finished(id, timeoutMs);
  expect(order).toMatchObject({ processing_state: 'completed', call_attempts: s.calls.length });
  const result = (await send(stack.baseUrl, live, 'GET', `/orders/${id}/result`)).body;
  expect(result).toMatchObject({ call_disposition: s.calls.at(-1), business_outcome: s.outcome, final_order_snapshot: { total: s.total } });
  // Exactly one attempt per dial, each as the network ended it.
  expect(await attemptsOf(id)).toEqual(s.calls.map((c, i) => [i + 1, c]));
  expect(contactsTo(phone)).toHaveLength(s.calls.length);
  return { id, phone };
}

describe('a live tenant calling through Amazon Connect (the stand-in)', () => {
  it.concurrent.each(SCENARIOS)('scenario $digit: $calls ends $outcome, as in the sandbox', async (s) => {
    const { phone } = await expectScenario(s);
    const contacts = contactsTo(phone);
    // Every dial came from the market's claimed number, carrying the opaque reference and nothing else.
    for (const contact of contacts) {
      expect(contact.instanceId).toBe(LOCAL_CONNECT_INSTANCE_ARN.split('/').at(-1));
      expect(contact.source).toBe('+4930555000100');
      expect(Object.keys(contact.attributes)).toEqual(['attempt_ref']);
    }
    // What an answered customer heard is the dialog's conversation, in the customer's language.
    const answered = contacts.filter((c) => c.connectedAt !== undefined);
    for (const contact of answered) expect(stack.connect!.calls.heard.get(contact.id)?.said[0]).toMatch(/Bestellung/);
  });
});

describe('contact events as unreliable as Connect documents them', () => {
  const checked = [SCENARIOS[0]!, SCENARIOS[2]!, SCENARIOS[3]!];
  const faults = [
    { name: 'duplicated', faults: { duplicate: 1 } },
    { name: 'reordered', faults: { reorder: 1 } },
    { name: 'delayed', faults: { delayMs: 2_000 } },
    { name: 'lost (the deadline asks DescribeContact)', faults: { drop: 1 } },
  ];
  for (const { name, faults: set } of faults) {
    it(`gives the same results with ${name} events, one attempt recorded per dial`, async () => {
      Object.assign(stack.connect!.calls.faults, { drop: 0, duplicate: 0, delayMs: 0, reorder: 0 }, set);
      try {
        await Promise.all(checked.map((s) => expectScenario(s, 90_000)));
      } finally {
        Object.assign(stack.connect!.calls.faults, { drop: 0, duplicate: 0, delayMs: 0, reorder: 0 });
      }
    }, 120_000);
  }
});

describe('cancels and erasure on the telephone network', () => {
  it('ends a call the customer is on with exactly one StopContact, however often the partner cancels', async () => {
    stack.connect!.calls.timing.speechMs = 4_000;
    try {
      const { id, phone } = await placeOrder('0');
      const [contact] = await eventually(
        () => contactsTo(phone),
        (cs) => cs[0]?.connectedAt !== undefined,
        { timeoutMs: 20_000, everyMs: 50 },
      );
      // The customer has pressed 1 and is hearing the order when the partner cancels.
      await eventually(
        async () => stack.connect!.calls.heard.get(contact!.id)?.pressed ?? [],
        (pressed) => pressed.includes('1'),
        { timeoutMs: 20_000, everyMs: 50 },
      );
      const cancels = await Promise.all([1, 2, 3].map(() => send(stack.baseUrl, live, 'POST', `/orders/${id}/cancel`)));
      expect(cancels.map((c) => c.status).filter((s) => s === 200).length).toBeGreaterThan(0);
      const order = await finished(id);
      expect(order.processing_state).toBe('cancelled');
      expect(contact!.stops).toBe(1);
      // The stopped call's attempt is still recorded with the order.
      expect(
        await eventually(
          () => attemptsOf(id),
          (a) => a.length === 1,
        ),
      ).toEqual([[1, 'answered']]);
    } finally {
      stack.connect!.calls.timing.speechMs = 5;
    }
  });

  it('places no conversation when the cancel races the dial', async () => {
    const { standIn, calls } = stack.connect!;
    standIn.dialAnswerDelayMs = 1_500;
    calls.timing.ringMs = 1_000;
    try {
      const { id, phone } = await placeOrder('0');
      await eventually(
        () => contactsTo(phone),
        (cs) => cs.length === 1,
        { timeoutMs: 20_000, everyMs: 20 },
      );
      // The dial is on its way (Connect has placed the contact, its answer is not back).
      expect((await send(stack.baseUrl, live, 'POST', `/orders/${id}/cancel`)).status).toBe(200);
      expect((await finished(id)).processing_state).toBe('cancelled');
      const [contact] = await eventually(
        () => contactsTo(phone),
        (cs) => cs[0]?.disconnectedAt !== undefined,
        { timeoutMs: 20_000 },
      );
      expect(contact!.stops).toBe(1);
      expect(calls.heard.get(contact!.id)?.said ?? []).toEqual([]);
    } finally {
      standIn.dialAnswerDelayMs = 0;
      calls.timing.ringMs = 20;
    }
  });

  it("erases a customer's calls: the contacts' reference blanked in Connect, no mapping item left", async () => {
    const { id, customer, phone } = await placeOrder('0');
    expect((await finished(id)).processing_state).toBe('completed');
    const { tableClient, tableName } = await import('#shared/storage/clients.ts');
    const { keys } = await import('#shared/storage/keys.ts');
    const [contact] = contactsTo(phone);
    const reference = contact!.attributes.attempt_ref!;
    expect(reference).not.toBe('');
    expect((await send(stack.baseUrl, live, 'POST', `/customers/${customer}/anonymize`)).status).toBeLessThan(300);
    const contactItems = async () => {
      const byCustomer = await tableClient().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :c)',
          ExpressionAttributeValues: { ':pk': keys.customer(live.tenant, customer).pk, ':c': 'CONTACT#' },
        }),
      );
      const byOrder = await tableClient().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :c)',
          ExpressionAttributeValues: { ':pk': keys.order(live.tenant, id).pk, ':c': 'CONTACT#' },
        }),
      );
      const byKey = async (pk: string) =>
        (await tableClient().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } })))
          .Items?.length ?? 0;
      const byContact = await byKey(keys.contact(contact!.id).pk);
      const byReference = await byKey(keys.callReference(reference).pk);
      return (byCustomer.Items?.length ?? 0) + (byOrder.Items?.length ?? 0) + byContact + byReference;
    };
    expect(await eventually(contactItems, (n) => n === 0, { timeoutMs: 30_000 })).toBe(0);
    expect(contact!.attributes.attempt_ref).toBe('');
  });

  it('dials a dial Connect throttled again as the same attempt, never counting it twice', async () => {
    stack.connect!.standIn.throttleNextDials(8);
    const { id, phone } = await placeOrder('0');
    expect(await finished(id)).toMatchObject({ processing_state: 'completed', call_attempts: 1 });
    expect(await attemptsOf(id)).toEqual([[1, 'answered']]);
    expect(contactsTo(phone)).toHaveLength(1);
  });
});

describe("Connect's refusals and quotas", () => {
  it("never dials a number outside the tenant's markets, nor one a person does not answer: rejected, destination_not_allowed", async () => {
    // A French mobile (the tenant has no French market) and a German premium-rate number (0900).
    for (const phone of ['+33612345678', '+4990012345678']) {
      const { id } = await placeOrder('0', phone);
      expect(await finished(id)).toMatchObject({ processing_state: 'rejected', state_reason: 'destination_not_allowed', call_attempts: 0 });
      expect(contactsTo(phone)).toEqual([]);
    }
  });

  it('ends an order whose destination Connect refuses at once, with one failed attempt, while the other orders of the same sweep are dialled', async () => {
    const { standIn } = stack.connect!;
    const allowed = standIn.allowedCountries;
    // The instance's allowlist without Austria: every country is deny-by-default until the platform team allows it.
    standIn.allowedCountries = new Set([...allowed].filter((c) => c !== 'AT'));
    try {
      // Due together a moment from now, so that one sweep run starts them all.
      const together = { contact_not_before: new Date(Date.now() + 3_000).toISOString() };
      const austrian = `+43664${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}0`;
      const [refused, ...others] = await Promise.all([placeOrder('0', austrian, together), ...[1, 2, 3].map(() => placeOrder('0', undefined, together))]);
      const order = await finished(refused!.id);
      expect(order).toMatchObject({ processing_state: 'completed', state_reason: 'destination_not_allowed', call_attempts: 1 });
      expect((await send(stack.baseUrl, live, 'GET', `/orders/${refused!.id}/result`)).body).toMatchObject({
        call_disposition: 'failed',
        business_outcome: 'unreachable',
        final_order_snapshot: { reason: 'destination_not_allowed' },
      });
      expect(await attemptsOf(refused!.id)).toEqual([[1, 'failed']]);
      expect(contactsTo(austrian)).toEqual([]);
      for (const other of others) expect(await finished(other.id)).toMatchObject({ processing_state: 'completed', state_reason: 'confirmed' });
      expect(standIn.refusals.DestinationNotAllowedException).toBeGreaterThanOrEqual(1);

      // Its customer's erasure completes: the attempt prepared for a call that was never placed has no contact in Connect to blank.
      expect((await send(stack.baseUrl, live, 'POST', `/customers/${refused!.customer}/anonymize`)).status).toBeLessThan(300);
      const { tableClient, tableName } = await import('#shared/storage/clients.ts');
      const { keys } = await import('#shared/storage/keys.ts');
      const remaining = async () =>
        (
          await tableClient().send(
            new QueryCommand({
              TableName: tableName(),
              KeyConditionExpression: 'pk = :pk AND begins_with(sk, :c)',
              ExpressionAttributeValues: { ':pk': keys.customer(live.tenant, refused!.customer).pk, ':c': 'CONTACT#' },
            }),
          )
        ).Items?.length ?? 0;
      expect(await eventually(remaining, (n) => n === 0, { timeoutMs: 30_000 })).toBe(0);
    } finally {
      standIn.allowedCountries = allowed;
    }
  });

  it('never has more calls in flight than the quota, and a dial Connect refuses for its quota waits for a call to end', async () => {
    const { standIn, calls } = stack.connect!;
    calls.timing.speechMs = 600;
    const peakBefore = standIn.peakInFlight;
    try {
      const orders = await Promise.all(Array.from({ length: 3 * QUOTA }, () => placeOrder('0')));
      for (const { id } of orders) expect(await finished(id, 120_000)).toMatchObject({ processing_state: 'completed', call_attempts: 1 });
      expect(Math.max(standIn.peakInFlight, peakBefore)).toBeLessThanOrEqual(QUOTA);
      // Connect's own count is stricter than the stack's (another user of the instance holds calls): its refusals wait too.
      standIn.concurrentCalls = 2;
      const refusedBefore = standIn.refusals.LimitExceededException ?? 0;
      const more = await Promise.all(Array.from({ length: 4 }, () => placeOrder('0')));
      for (const { id } of more) expect(await finished(id, 120_000)).toMatchObject({ processing_state: 'completed', call_attempts: 1 });
      expect(standIn.refusals.LimitExceededException ?? 0).toBeGreaterThan(refusedBefore);
    } finally {
      calls.timing.speechMs = 5;
      standIn.concurrentCalls = QUOTA;
    }
  }, 300_000);

  it("reads silence as Connect stores it (`Timeout`): asked once more, then goodbye without a word of the order, in a German customer's German voice", async () => {
    const { calls } = stack.connect!;
    const phone = numberEnding('0');
    calls.customers.set(phone, { kind: 'answers', wants: 'nothing' });
    try {
      const { id } = await placeOrder('0', phone);
      const [contact] = await eventually(
        () => contactsTo(phone),
        (cs) => cs[0]?.disconnectedAt !== undefined,
        { timeoutMs: 30_000 },
      );
      const heard = calls.heard.get(contact!.id)!;
      expect(heard.pressed).toEqual([null, null]);
      expect(heard.said).toHaveLength(3);
      expect(heard.said[1]).toMatch(/Um Ihre Bestellung zu hören, drücken Sie die 1/);
      expect(heard.said[2]).toMatch(/später wieder an/);
      // Not a word of the order: no line, no price, no total, no date.
      expect(heard.said.join(' ')).not.toMatch(/€|EUR|mal |Gesamtbetrag|Bestellung vom/);
      expect(new Set(heard.voices)).toEqual(new Set(['Vicki']));
      expect(
        await eventually(
          () => attemptsOf(id),
          (a) => a.length >= 1,
        ),
      ).toContainEqual([1, 'no_answer']);
      await send(stack.baseUrl, live, 'POST', `/orders/${id}/cancel`);
    } finally {
      calls.customers.delete(phone);
    }
  });
});
