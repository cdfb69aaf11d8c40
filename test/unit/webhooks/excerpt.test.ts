import { describe, expect, it } from 'vitest';
import { requestExcerpt, responseExcerpt } from '#shared/webhooks/excerpt.ts';

describe('the delivery log’s excerpts', () => {
  it("mask what a receiver's answer may echo: e-mail addresses, credentials, opaque tokens, phone numbers with or without separators", () => {
    const answer =
      'Error for jane.doe@example.com: Authorization: Bearer abcd1234efgh5678, token=s3cr3tvalue, ' +
      '{"api_key": "sk_live_51HxYzAbCdEf"} jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig call +49 151 1234 5670 or 0151 1234 5670 or 4111111111111111';
    const kept = responseExcerpt(answer);
    for (const leak of ['jane.doe', 'abcd1234efgh5678', 's3cr3tvalue', 'sk_live_51HxYzAbCdEf', 'eyJhbGciOiJIUzI1NiJ9', '1234 5670', '4111111111111111']) {
      expect(kept).not.toContain(leak);
    }
    expect(kept).toContain('j***@***.com');
    expect(kept).toContain('Error for');
  });

  it('keep our own request readable: event ids, times and amounts stay, personal data does not', () => {
    const payload = JSON.stringify({
      event_id: 'evt_0f8c2b3a9d1e4f5a6b7c8d9e0f1a2b3c',
      event_occurred_at: '2026-11-24T06:25:11.123Z',
      data: { total: '19.99', note: 'call +49 151 1234 5670' },
    });
    const kept = requestExcerpt(payload);
    expect(kept).toContain('evt_0f8c2b3a9d1e4f5a6b7c8d9e0f1a2b3c');
    expect(kept).toContain('2026-11-24T06:25:11.123Z');
    expect(kept).toContain('19.99');
    expect(kept).not.toContain('1234 5670');
  });

  it('keep at most 1,024 characters', () => {
    expect(responseExcerpt('x'.repeat(5000))).toHaveLength(1024);
  });
});
