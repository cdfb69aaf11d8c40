/**
 * The API reference page in a real headless Chromium: served by the local runtime at /docs and
 * written as one static file by `npm run docs`, it shows every operation and every event type,
 * and loads nothing from anywhere else (the static file is opened with the network cut off).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCommittedReference } from '#contract/docs.ts';
import { ROUTES } from '#functions/routes.ts';
import { EVENT_TYPES } from '#shared/events/event-types.ts';
import { PROBLEM_CODES } from '#shared/http/problem.ts';
import { canTransition } from '#shared/orders/state-machine.ts';
import { baseUrl, call, newTenant } from '../support/stack.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const origin = new URL(baseUrl).origin;
const work = mkdtempSync(join(tmpdir(), 'api-reference-'));
let browser: Browser;

beforeAll(async () => {
  if (!CHROMIUM) throw new Error('Chromium is missing: apt-get install -y chromium (.ci/run installs it), or set CHROMIUM_PATH');
  browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
});
afterAll(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

/** Opens `url`, letting through only what `allowed` admits; answers every request the page made. */
async function open(url: string, allowed: (requested: string) => boolean, offline = false): Promise<{ page: Page; requested: string[] }> {
  const page = await browser.newPage();
  const requested: string[] = [];
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    requested.push(request.url());
    if (allowed(request.url())) void request.continue();
    else void request.abort();
  });
  if (offline) await page.setOfflineMode(true);
  await page.goto(url, { waitUntil: 'load' });
  return { page, requested };
}

interface Shown {
  operations: Record<string, string>;
  events: Record<string, string>;
  navLinks: number;
}

/** What the page shows for each operation and each event type (evaluated in the page, where the DOM is). */
const contents = (page: Page): Promise<Shown> =>
  page.evaluate(`(() => {
    const text = (e) => e.innerText.replace(/\\s+/g, ' ');
    return {
      operations: Object.fromEntries([...document.querySelectorAll('[data-operation-id]')].map((e) => [e.dataset.operationId, text(e)])),
      events: Object.fromEntries([...document.querySelectorAll('[data-event-type]')].map((e) => [e.dataset.eventType, text(e)])),
      navLinks: document.querySelectorAll('nav a').length,
    };
  })()`) as Promise<Shown>;

function expectComplete(shown: Shown) {
  expect(Object.keys(shown.operations).sort()).toEqual(ROUTES.map((r) => r.operationId).sort());
  for (const route of ROUTES) {
    const text = shown.operations[route.operationId]!;
    expect(text, route.operationId).toContain(route.summary);
    expect(text, route.operationId).toContain(`${route.method} ${route.path}`);
    expect(text, route.operationId).toContain(route.scope);
  }
  expect(Object.keys(shown.events).sort()).toEqual([...EVENT_TYPES].sort());
  for (const type of EVENT_TYPES) expect(shown.events[type], type).toContain('X-SVC-Webhook-Signature');
}

describe('the API reference page', () => {
  it('is served at /docs, outside the signed base path, and shows every operation and every event type from the page alone', async () => {
    const { page, requested } = await open(`${origin}/docs`, (u) => u.startsWith(`${origin}/`));
    expectComplete(await contents(page));
    expect(requested).toEqual([`${origin}/docs`]);
    await page.close();
  });

  it('works as one static file with the network cut off, its links included', async () => {
    const file = join(work, 'api-reference.html');
    writeFileSync(file, renderCommittedReference());
    const { page, requested } = await open(pathToFileURL(file).href, (u) => u.startsWith('file:'), true);
    const shown = await contents(page);
    expectComplete(shown);
    expect(shown.navLinks).toBeGreaterThan(ROUTES.length + EVENT_TYPES.length);
    expect(requested).toEqual([pathToFileURL(file).href]);
    await page.click('nav a[href="#event-commerce.order.result_ready.v1"]');
    expect(await page.evaluate('location.hash')).toBe('#event-commerce.order.result_ready.v1');
    const onScreen = await page.$eval('[data-event-type="commerce.order.result_ready.v1"]', (e) => e.getBoundingClientRect().top);
    expect(Math.abs(onScreen)).toBeLessThan(50);
    await page.close();
  });

  it('shows an example and a code sample on every operation and event, and its search keeps only what matches', async () => {
    const errors: string[] = [];
    const { page } = await open(`${origin}/docs`, (u) => u.startsWith(`${origin}/`));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    const samples = (await page.evaluate(`(() => {
      const of = (selector) => Object.fromEntries([...document.querySelectorAll(selector)].map((e) => [e.dataset.operationId ?? e.dataset.eventType, {
        example: [...e.querySelectorAll('pre.example')].map((p) => p.innerText.length),
        code: [...e.querySelectorAll('pre.code')].map((p) => p.className.replace('code ', '')),
      }]));
      return { operations: of('[data-operation-id]'), events: of('[data-event-type]') };
    })()`)) as { operations: Record<string, { example: number[]; code: string[] }>; events: Record<string, { example: number[]; code: string[] }> };
    for (const route of ROUTES) {
      const shown = samples.operations[route.operationId]!;
      expect(shown.example.length, `${route.operationId} shows an example`).toBeGreaterThan(0);
      expect(
        shown.example.every((length) => length > 1),
        route.operationId,
      ).toBe(true);
      expect(shown.code, route.operationId).toEqual(['curl', 'sandbox', 'client']);
    }
    // The snippets call the server that serves the page, and the shell command signs for you.
    const getOrder = (await page.evaluate(`[...document.querySelectorAll('[data-operation-id="getOrder"] pre.code')].map((p) => p.innerText)`)) as string[];
    expect(getOrder[0]).toContain(`curl -X GET '${baseUrl}/orders/`);
    expect(getOrder[1]).toMatch(/^npm run sandbox -- request GET '\/orders\/[^']+'$/);
    for (const type of EVENT_TYPES) expect(samples.events[type], type).toEqual({ example: [expect.any(Number)], code: ['verify'] });

    await page.type('#search', 'rotateWebhookSecret');
    const visible = (await page.evaluate(
      `[...document.querySelectorAll('section.operation')].filter((e) => !e.hidden).map((e) => e.dataset.operationId)`,
    )) as string[];
    expect(visible).toEqual(['rotateWebhookSecret']);
    expect(await page.evaluate(`document.querySelector('nav a[href="#op-createOrder"]').hidden`)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows examples that agree: an answer about the resource its request names, events of one order with a real change of state', async () => {
    const { page } = await open(`${origin}/docs`, (u) => u.startsWith(`${origin}/`));
    const shown = (await page.evaluate(`(() => {
      const json = (e, cls) => { const p = e.querySelector('pre.' + cls); return p ? JSON.parse(p.innerText) : null; };
      const code = (e) => [...e.querySelectorAll('pre.code')].map((p) => p.innerText);
      return {
        operations: Object.fromEntries([...document.querySelectorAll('[data-operation-id]')].map((e) => [e.dataset.operationId, { request: json(e, 'request'), answer: json(e, 'response'), code: code(e) }])),
        events: Object.fromEntries([...document.querySelectorAll('[data-event-type]')].map((e) => [e.dataset.eventType, json(e, 'payload')])),
      };
    })()`)) as {
      operations: Record<string, { request: any; answer: any; code: string[] }>;
      events: Record<string, any>;
    };
    const created = shown.operations.createOrder!;
    expect(created.answer.external_order_id).toBe(created.request.external_order_id);
    const order = created.request.external_order_id as string;
    // The order read back, in its code sample's path too, is the order the example created.
    expect(shown.operations.getOrder!.answer.external_order_id).toBe(order);
    expect(shown.operations.getOrder!.code[1]).toBe(`npm run sandbox -- request GET '/orders/${order}'`);
    expect(shown.operations.getOrderResult!.answer.external_order_id).toBe(order);
    const customer = shown.operations.putCustomer!;
    expect(customer.code[1]).toContain(`/customers/${encodeURIComponent(customer.answer.external_customer_id)}'`);
    for (const type of EVENT_TYPES) {
      const event = shown.events[type];
      expect(event?.event_type, type).toBe(type);
      expect(event.test, `${type} is not a test event`).toBeUndefined();
    }
    const change = shown.events['commerce.order.status_changed.v1'].data;
    expect(change.previous_state).not.toBe(change.processing_state);
    expect(canTransition(change.previous_state, change.processing_state)).toBe(true);
    // The result event carries the result the result endpoint answers, for the same order.
    const ready = shown.events['commerce.order.result_ready.v1'];
    expect(ready.external_order_id).toBe(order);
    expect(ready.data.result.business_outcome).toBe(shown.operations.getOrderResult!.answer.business_outcome);
    await page.close();
  });

  it("opens a problem's doc_url on its code's entry, which says what it means and what to do; every code has one", async () => {
    const key = await newTenant();
    const missing = await call(key, 'GET', '/orders/no-such-order');
    const invalid = await call(key, 'PUT', '/customers/c-1', { body: { phone: 'not a phone' } });
    const unsigned = await fetch(`${baseUrl}/orders`);
    const answers = [missing.body, invalid.body, await unsigned.json()] as { code: string; doc_url: string; type: string }[];
    expect(answers.map((a) => a.code)).toEqual(['resource_not_found', 'validation_failed', 'invalid_signature']);
    for (const answer of answers) {
      expect(answer.type).toBe(`urn:commerce-interface:problem:${answer.code}`);
      const { page } = await open(answer.doc_url, (u) => u.startsWith(`${origin}/`));
      const target = (await page.evaluate(`(() => {
        const t = document.querySelector(':target');
        return t && { code: t.dataset.problemCode, text: t.innerText, top: t.getBoundingClientRect().top };
      })()`)) as { code: string; text: string; top: number } | null;
      expect(target?.code, answer.doc_url).toBe(answer.code);
      expect(target!.text).toMatch(/Means: .+\n+What to do: .+/s);
      expect(Math.abs(target!.top)).toBeLessThan(50);
      await page.close();
    }
    const { page } = await open(`${origin}/docs`, (u) => u.startsWith(`${origin}/`));
    const codes = await page.evaluate(`[...document.querySelectorAll('[data-problem-code]')].map((e) => e.dataset.problemCode)`);
    expect(codes).toEqual(Object.keys(PROBLEM_CODES));
    await page.close();
  });
});
