import { describe, expect, it } from 'vitest';
import { ORDER_STATES } from '#shared/api/order-states.ts';
import { dialogScript } from '#shared/calls/dialog.ts';
import { converse, sandboxCustomer } from '#shared/calls/simulated-customer.ts';
import type { ResolvedVariant } from '#shared/catalog/variant-index.ts';
import { type QualificationInput, qualify } from '#shared/orders/qualification.ts';
import { acceptFirstSuggestion, snapshotOf, total } from '#shared/orders/snapshot.ts';
import { allTransitions, canTransition, FINAL_STATES } from '#shared/orders/state-machine.ts';
import type { SalesRule } from '#shared/rules/rule-schemas.ts';

describe('order state machine', () => {
  it('allows exactly the transitions of contract-decisions section 6', () => {
    expect(
      allTransitions()
        .map(([a, b]) => `${a}>${b}`)
        .sort(),
    ).toEqual(
      [
        'received>validated',
        'received>rejected',
        'received>cancelled',
        'validated>scheduled',
        'validated>rejected',
        'validated>cancelled',
        'scheduled>in_call',
        'scheduled>validated',
        'scheduled>rejected',
        'scheduled>cancelled',
        'in_call>completed',
        'in_call>scheduled',
        'in_call>cancelled',
      ].sort(),
    );
  });

  it('leaves no way out of a final state', () => {
    for (const final of FINAL_STATES) for (const to of ORDER_STATES) expect(canTransition(final, to)).toBe(false);
  });
});

const variant = (id: string, extra: Partial<ResolvedVariant> = {}): ResolvedVariant => ({
  external_variant_id: id,
  external_product_id: `p-${id}`,
  category: 'coffee',
  archived: false,
  price: '10.00',
  currency: 'EUR',
  ...extra,
});
const rule = (id: string, extra: Partial<SalesRule>): SalesRule => ({
  external_rule_id: id,
  rule_type: 'upsell',
  priority: 0,
  enabled: true,
  status: 'active',
  applies_to: { category: 'coffee' },
  action: {},
  source_version: '1',
  archived_at: null,
  created_at: '',
  updated_at: '',
  ...extra,
});
const input = (over: Partial<QualificationInput> = {}): QualificationInput => ({
  order: {
    order_kind: 'standard',
    items: [{ external_variant_id: 'a', quantity: 2, price: '10.00', currency: 'EUR' }],
    contact_permission: { status: 'granted' },
  },
  customer: { consent: 'granted', anonymized: false },
  variants: new Map([
    ['a', variant('a')],
    ['b', variant('b')],
  ]),
  rules: [],
  repurchaseIntentEnabled: true,
  destinationAllowed: true,
  ...over,
});

describe('qualify', () => {
  it('qualifies a callable order and names the first reason otherwise', () => {
    expect(qualify(input())).toEqual({ qualified: true, substitutions: [] });
    const cases: [Partial<QualificationInput>, string][] = [
      [{ customer: undefined }, 'customer_not_found'],
      [{ customer: { consent: 'granted', anonymized: true } }, 'customer_anonymized'],
      [{ customer: { consent: 'withdrawn', anonymized: false } }, 'consent_not_granted'],
      [{ destinationAllowed: false }, 'destination_not_allowed'],
      [{ variants: new Map() }, 'unknown_variant'],
      [{ variants: new Map([['a', variant('a', { archived: true })]]) }, 'variant_archived'],
      [{ variants: new Map([['a', variant('a', { currency: 'USD' })]]) }, 'currency_mismatch'],
      [{ variants: new Map([['a', variant('a', { max_quantity: 1 })]]) }, 'quantity_out_of_range'],
      [{ rules: [rule('q', { rule_type: 'quantity_constraint', action: { max_quantity: 1 } })] }, 'quantity_out_of_range'],
      [{ rules: [rule('p', { rule_type: 'price_constraint', action: { currency: 'EUR', min_price: '10.01' } })] }, 'price_out_of_range'],
      [{ repurchaseIntentEnabled: false, order: { ...input().order, order_kind: 'repurchase_intent' } }, 'repurchase_intent_disabled'],
    ];
    for (const [over, reason] of cases) expect(qualify(input(over))).toMatchObject({ qualified: false, reason });
  });

  it('substitutes an archived variant when a replacement rule names an active one', () => {
    const result = qualify(
      input({
        variants: new Map([
          ['a', variant('a', { archived: true })],
          ['b', variant('b')],
        ]),
        rules: [rule('r', { rule_type: 'replacement', applies_to: { external_variant_ids: ['a'] }, action: { replacement_variant: 'b' } })],
      }),
    );
    expect(result).toEqual({ qualified: true, substitutions: [{ line: 0, from: 'a', to: 'b', rule: 'r' }] });
  });
});

describe('snapshot money', () => {
  it('totals exactly in decimal with the currency minor units, never in floating point', () => {
    expect(total([{ external_variant_id: 'x', quantity: 3, price: '0.10' }], 'EUR')).toBe('0.30');
    expect(
      total(
        [
          { external_variant_id: 'x', quantity: 1, price: '0.1' },
          { external_variant_id: 'y', quantity: 1, price: '0.2' },
        ],
        'EUR',
      ),
    ).toBe('0.30');
    expect(total([{ external_variant_id: 'x', quantity: 7, price: '120' }], 'JPY')).toBe('840');
    expect(total([{ external_variant_id: 'x', quantity: 3, price: '1.333' }], 'BHD')).toBe('3.999');
    expect(total([{ external_variant_id: 'x', quantity: 99_999, price: '999999999999999.99' }], 'EUR')).toBe('99998999999999999000.01');
  });

  it('an upsell swaps the matching lines, a cross-sell adds a line, the first by priority wins', () => {
    const variants = new Map([
      ['a', variant('a')],
      ['big', variant('big', { price: '25.50' })],
      ['cup', variant('cup', { category: 'kitchen', price: '3.00' })],
    ]);
    const lines = [{ external_variant_id: 'a', quantity: 2, price: '10.00' }];
    const upsell = acceptFirstSuggestion(
      lines,
      variants,
      [
        rule('up', { priority: 1, action: { suggest_variant: 'big' } }),
        rule('x', { rule_type: 'cross_sell', action: { suggest_variant: 'cup', quantity: 2 } }),
      ],
      'EUR',
    );
    expect(upsell).toEqual({
      rule: 'up',
      kind: 'replaces',
      suggested: variants.get('big'),
      lines: [{ external_variant_id: 'big', quantity: 2, price: '25.50' }],
    });
    const cross = acceptFirstSuggestion(
      lines,
      variants,
      [rule('x', { rule_type: 'cross_sell', priority: 9, action: { suggest_variant: 'cup', quantity: 2 } })],
      'EUR',
    );
    expect(cross).toMatchObject({ kind: 'adds', suggested: variants.get('cup') });
    expect(snapshotOf(cross!.lines, 'EUR', true, null)).toMatchObject({
      total: '26.00',
      items: [{ external_variant_id: 'a' }, { external_variant_id: 'cup', quantity: 2 }],
    });
  });

  it("an upsell offers at most its max_quantity of the suggested variant (the spec's upsell example)", () => {
    const variants = new Map([
      ['a', variant('a')],
      ['big', variant('big', { price: '25.50' })],
    ]);
    const lines = [{ external_variant_id: 'a', quantity: 5, price: '10.00' }];
    const upsell = acceptFirstSuggestion(lines, variants, [rule('up', { action: { suggest_variant: 'big', max_quantity: 2 } })], 'EUR');
    expect(upsell?.lines).toEqual([{ external_variant_id: 'big', quantity: 2, price: '25.50' }]);
  });

  it('never accepts a suggestion priced in another currency than the order, so a snapshot has one currency', () => {
    const variants = new Map([
      ['a', variant('a')],
      ['usd', variant('usd', { price: '30.00', currency: 'USD' })],
      ['cup', variant('cup', { price: '3.00' })],
    ]);
    const lines = [{ external_variant_id: 'a', quantity: 1, price: '10.00' }];
    const accepted = acceptFirstSuggestion(
      lines,
      variants,
      [
        rule('up', { priority: 5, action: { suggest_variant: 'usd' } }),
        rule('x', { rule_type: 'cross_sell', action: { suggest_variant: 'cup', quantity: 1 } }),
      ],
      'EUR',
    );
    expect(accepted?.rule).toBe('x');
    expect(snapshotOf(accepted!.lines, 'EUR', true, null).total).toBe('13.00');
  });
});

describe('the sandbox scenarios', () => {
  const script = (offer: boolean) =>
    dialogScript({
      storeName: 'Rösterei',
      orderedAt: '2026-11-24T09:00:00Z',
      timeZone: 'Europe/Berlin',
      locales: ['de-DE'],
      currency: 'EUR',
      lines: [{ title: 'Beans', quantity: 2, price: '9.99' }],
      total: '19.98',
      offer: offer ? { title: 'Big beans', price: '14.99', kind: 'replaces' } : undefined,
    });
  /** What the simulated customer of a digit makes of each attempt, through the conversation. */
  const call = (digit: string, attempt: number, offer = true) => converse(script(offer), sandboxCustomer(`+49151000000${digit}`, attempt));

  it('decide by the last digit and the attempt how the customer behaves, and keep the documented results', () => {
    const run = (digit: string) => [1, 2, 3].map((attempt) => call(digit, attempt).call_disposition);
    expect(run('1')).toEqual(['no_answer', 'no_answer', 'no_answer']);
    expect(run('2').slice(0, 2)).toEqual(['no_answer', 'answered']);
    expect(run('5').slice(0, 2)).toEqual(['busy', 'answered']);
    expect(run('9')[0]).toBe('invalid_number');
    expect(call('3', 1).decision).toBe('declined');
    expect(call('4', 1).decision).toBe('modified');
    // Without a suggestion to take, the customer of scenario 4 confirms the order as it is.
    expect(call('4', 1, false).decision).toBe('confirmed');
    for (const d of ['0', '6', '7', '8']) expect(call(d, 1)).toMatchObject({ call_disposition: 'answered', decision: 'confirmed' });
  });

  it('carry what the customer heard and pressed, nothing of the order before their first key, and nothing for a call nobody took', () => {
    const declined = call('3', 1);
    expect(declined.transcript.map((t) => t.speaker)).toEqual(['service', 'customer', 'service', 'customer', 'service']);
    expect(declined.transcript[0]).toMatchObject({ text: expect.not.stringContaining('Beans') });
    expect(declined.transcript[1]).toEqual({ speaker: 'customer', key: '1' });
    expect(declined.transcript[2]).toMatchObject({ text: expect.stringContaining('2 mal Beans') });
    expect(declined.transcript[3]).toEqual({ speaker: 'customer', key: '2' });
    expect(call('1', 1).transcript).toEqual([]);
  });
});
