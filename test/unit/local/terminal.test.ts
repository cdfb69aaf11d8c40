/** The npm start terminal's lines, from the handlers' structured log lines. */
import { describe, expect, it } from 'vitest';
import { terminalLine } from '#local/terminal.ts';

const at = '2026-11-24T17:01:02.345Z';

describe('the npm start terminal', () => {
  it('shows a request as method, path, status, duration and its ids', () => {
    expect(
      terminalLine({
        level: 'INFO',
        message: 'request completed',
        timestamp: at,
        method: 'POST',
        path: '/orders',
        status: 201,
        duration_ms: 38,
        tenant: 'sandbox',
        request_id: 'r-1',
        correlation_id: 'c-1',
      }),
    ).toBe('17:01:02 POST /orders 201 38 ms tenant=sandbox req=r-1 corr=c-1');
    const uncorrelated = { level: 'INFO', message: 'request completed', method: 'GET', path: '/orders', status: 200, request_id: 'r-2' };
    expect(terminalLine({ ...uncorrelated, correlation_id: 'r-2' })).toMatch(/ req=r-2$/);
  });

  it('leaves out the sandbox CLI’s own polling, but not what it changes', () => {
    const polled = { level: 'INFO', message: 'request completed', method: 'GET', path: '/webhook-deliveries', status: 200 };
    expect(terminalLine({ ...polled, client: 'commerce-sandbox-cli' })).toBeUndefined();
    expect(terminalLine({ ...polled, client: 'curl/8.5' })).toContain('GET /webhook-deliveries 200');
    expect(terminalLine({ ...polled, method: 'PUT', path: '/webhook-subscription', client: 'commerce-sandbox-cli' })).toContain(
      'PUT /webhook-subscription 200',
    );
  });

  it('shows each webhook attempt with its answer and what comes next', () => {
    const attempt = { level: 'INFO', message: 'webhook attempt', timestamp: at, delivery_id: 'dlv_1', attempt: 2, tenant: 't', event_id: 'evt_1' };
    expect(terminalLine({ ...attempt, status_code: 500, error: 'http_500', status: 'retrying', retry_in_s: 120 })).toBe(
      '17:01:02 webhook dlv_1 → 500, retry in 2 m (attempt 2) tenant=t event=evt_1',
    );
    expect(terminalLine({ ...attempt, status_code: null, error: 'timeout', status: 'retrying', retry_in_s: 30 })).toContain('→ timeout, retry in 30 s');
    expect(terminalLine({ ...attempt, status_code: 204, error: null, status: 'delivered' })).toContain('→ 204, delivered');
    expect(terminalLine({ ...attempt, status_code: 500, error: 'http_500', status: 'dead_lettered' })).toContain('→ 500, dead-lettered');
  });

  it('shows each call attempt with its disposition and the order by its correlation id, never the partner id', () => {
    expect(
      terminalLine({ level: 'INFO', message: 'call attempt', timestamp: at, correlation_id: 'cor_1', attempt: 1, call_disposition: 'no_answer', tenant: 't' }),
    ).toBe('17:01:02 call attempt 1: no_answer tenant=t corr=cor_1');
  });

  it('shows warnings and errors with their ids and error class, and no other information line', () => {
    expect(
      terminalLine({
        level: 'ERROR',
        message: 'unhandled error',
        timestamp: at,
        route: 'createOrder',
        error: { name: 'TypeError', stack: '…' },
        request_id: 'r-2',
      }),
    ).toBe('17:01:02 ERROR unhandled error route=createOrder error=TypeError req=r-2');
    expect(terminalLine({ level: 'INFO', message: 'something routine', timestamp: at })).toBeUndefined();
  });
});
