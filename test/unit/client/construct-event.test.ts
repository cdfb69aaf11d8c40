/** A receiver's side of the partner client: `constructEvent` against the contract's vector and what a receiver must refuse. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { constructEvent, WEBHOOK_HEADERS, WebhookSignatureError, webhookSignature } from '#client/index.ts';
import { signatureHeaders } from '#shared/outbound/signature.ts';
import { repoRoot } from '../../support/paths.ts';

const vector = JSON.parse(readFileSync(join(repoRoot, 'contract', 'signing-vectors.json'), 'utf8')).webhook;
const signedAt = new Date(Number(vector.timestamp) * 1000);
const vectorHeaders = {
  [WEBHOOK_HEADERS.timestamp]: vector.timestamp,
  [WEBHOOK_HEADERS.eventId]: vector.event_id,
  [WEBHOOK_HEADERS.signature]: vector.signature,
};
const rejection = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof WebhookSignatureError ? error.reason : error;
  }
  return 'accepted';
};

describe('constructEvent', () => {
  it("accepts the contract's vector and returns its event, with headers in any letter case or as a fetch Headers", () => {
    expect(webhookSignature(vector.secret, vector.timestamp, vector.event_id, vector.raw_body)).toBe(vector.signature);
    const lower = Object.fromEntries(Object.entries(vectorHeaders).map(([k, v]) => [k.toLowerCase(), v]));
    expect(constructEvent(vector.raw_body, lower, vector.secret, { now: signedAt })).toEqual(JSON.parse(vector.raw_body));
    expect(constructEvent(Buffer.from(vector.raw_body), new Headers(vectorHeaders), [vector.secret], { now: signedAt }).event_id).toBe('evt_01');
  });

  it('refuses a changed body, another secret, a stale or future timestamp, missing headers and an event id that is not the signed one', () => {
    const now = signedAt;
    expect(rejection(() => constructEvent(vector.raw_body.replace('true', 'tru3'), vectorHeaders, vector.secret, { now }))).toBe('bad_signature');
    expect(rejection(() => constructEvent(vector.raw_body, vectorHeaders, 'whsec_other', { now }))).toBe('bad_signature');
    expect(rejection(() => constructEvent(vector.raw_body, vectorHeaders, vector.secret, { now: new Date(now.getTime() + 301_000) }))).toBe('stale_timestamp');
    expect(rejection(() => constructEvent(vector.raw_body, vectorHeaders, vector.secret, { now: new Date(now.getTime() - 301_000) }))).toBe('stale_timestamp');
    expect(rejection(() => constructEvent(vector.raw_body, { [WEBHOOK_HEADERS.eventId]: 'evt_01' }, vector.secret, { now }))).toBe('missing_headers');
    const body = JSON.stringify({ event_id: 'evt_other', event_type: 'commerce.order.status_changed.v1' });
    const headers = signatureHeaders({ current: 'whsec_x' }, 'evt_01', body, now);
    expect(rejection(() => constructEvent(body, headers, 'whsec_x', { now }))).toBe('event_id_mismatch');
  });

  it("accepts either signature during a rotation: the receiver's new secret or its old one", () => {
    const body = JSON.stringify({ event_id: 'evt_2', event_type: 'commerce.order.result_ready.v1' });
    const now = new Date();
    const headers = signatureHeaders({ current: 'whsec_new', previous: 'whsec_old' }, 'evt_2', body, now);
    expect(constructEvent(body, headers, ['whsec_old']).event_id).toBe('evt_2');
    expect(constructEvent(body, headers, ['whsec_new', 'whsec_old']).event_type).toBe('commerce.order.result_ready.v1');
  });
});
