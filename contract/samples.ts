/**
 * Examples carried in the contract itself, so every generator, validator and reader sees them:
 * each request body the e2e suite sends (contract/examples.json, test/e2e/contract-examples),
 * and each success answer and each event as one run of the sandbox gave it
 * (contract/recorded-examples.json, `npm run contract:record`), so ids and states agree from
 * request to answer to event. What the run did not record is a sample built from its schema
 * (its own `example`, `default`, `const` or first enum value, else a plain value of its type
 * and format). Unit tests validate every example against its schema and the recorded ones
 * against the requests they answer.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathPattern } from '#shared/api/routes.ts';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document built as plain JSON; its shape is the OpenAPI specification's
type Schema = Record<string, any>;

/** Values a property of that name holds in the examples, where its type alone would read as noise. */
export const SAMPLE_VALUES: Readonly<Record<string, unknown>> = {
  delivery_id: 'dlv_01JD8Y2K7Q4M3N5P6R8S9T0V1W',
  replay_of: 'dlv_01JD8XZ9W0E2R4T6Y8U0I2O4P6',
  recovered_by: null,
  event_id: 'evt_01JD8Y2K7Q4M3N5P6R8S9T0V1W',
  correlation_id: 'cor_5f0c1e9a-2b7d-4c1e-9f3a-6d8e2b4c7a10',
  causation_id: 'evt_01JD8XZ9W0E2R4T6Y8U0I2O4P6',
  external_order_id: 'order-10045',
  external_customer_id: 'cust-42',
  external_product_id: 'gid://shopify/Product/123',
  external_variant_id: 'espresso-250g',
  external_rule_id: 'upsell-espresso',
  key_id: 'key_4bd48555832a8f17a4ec05b3',
  currency: 'EUR',
  price: '8.90',
  total: '17.80',
  locale: 'de-DE',
  country: 'DE',
  timezone: 'Europe/Berlin',
  phone: '+4915112345670',
  source_version: '2026-11-22T10:00:00Z',
  contract_version: '2026.11.24-draft.4',
  next_cursor: null,
  url: 'https://hooks.example.com/…/a1b2',
  reference: '/api/v1/commerce/orders/order-10045',
  listen_session_id: 'lsn_3f2b8c1d9e7a4b6c8d0e1f2a3b4c5d6e',
  cursor: '2026-11-24T10:00:00.000Z#evt_01JD8Y2K7Q4M3N5P6R8S9T0V1W',
  next_after: '2026-11-24T10:00:00.000Z#evt_01JD8Y2K7Q4M3N5P6R8S9T0V1W',
  event_type: 'commerce.order.status_changed.v1',
};

const INSTANT = '2026-11-24T10:00:00.000Z';

const resolve = (schema: Schema, doc: Schema): Schema => (schema.$ref ? resolve(doc.components.schemas[schema.$ref.split('/').at(-1)!], doc) : schema);

/** A value the schema accepts, shaped like what the service sends. */
export function sampleOf(schema: Schema | undefined, doc: Schema, name?: string, depth = 0): unknown {
  if (!schema || depth > 12) return null;
  const s = resolve(schema, doc);
  if (s.example !== undefined) return s.example;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) {
    const chosen = alternatives.find((a: Schema) => resolve(a, doc).type !== 'null') ?? alternatives[0];
    return sampleOf(chosen, doc, name, depth + 1);
  }
  const type = Array.isArray(s.type) ? (s.type.find((t: string) => t !== 'null') ?? 'null') : s.type;
  if (name && name in SAMPLE_VALUES && type !== 'object' && type !== 'array') {
    const byName = SAMPLE_VALUES[name];
    if (byName !== null || (Array.isArray(s.type) && s.type.includes('null'))) return byName;
  }
  if (s.default !== undefined) return s.default;
  switch (type) {
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, Schema>;
      return Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, sampleOf(property, doc, key, depth + 1)]));
    }
    case 'array':
      return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sampleOf(s.items, doc, name, depth + 1));
    case 'integer':
    case 'number':
      return s.minimum !== undefined && s.minimum > 1 ? s.minimum : (s.maximum ?? 1) < 1 ? s.maximum : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'string':
      if (s.format === 'date-time' || /_at$|^at$/.test(name ?? '')) return INSTANT;
      if (s.format === 'uri') return 'https://example.com/';
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
    default:
      return null;
  }
}

interface RequestExample {
  operationId: string;
  body: unknown;
}

/** Adds the examples to the contract: requests and their answers as recorded (request bodies as the e2e suite sends them), events as recorded, the rest as sampled. */
export function withExamples(doc: Schema, requests: RequestExample[] = requestExamples(), recorded: RecordedExamples = recordedExamples()): Schema {
  for (const [template, operations] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
    for (const op of Object.values(operations)) {
      const answers = recorded.answers.filter((a) => a.operationId === op.operationId);
      const answered = answers[0];
      // The path parameters the recorded request used: the code samples call the same resource the answer shows.
      const values = answered ? pathValues(template, answered.path) : {};
      for (const parameter of (op.parameters ?? []) as Schema[])
        if (parameter.in === 'path' && parameter.name in values) parameter.example = values[parameter.name];
      const request = answered?.body !== undefined ? answered : requests.find((r) => r.operationId === op.operationId);
      const body = op.requestBody?.content?.['application/json'];
      if (body && request) body.example = request.body;
      for (const [status, response] of Object.entries(op.responses as Record<string, Schema>)) {
        const content = response.content?.['application/json'];
        if (!status.startsWith('2') || !content?.schema) continue;
        const recordedAnswer = answers.find((a) => String(a.status) === status);
        content.example = recordedAnswer ? recordedAnswer.answer : sampleOf(content.schema, doc);
      }
    }
  }
  for (const [type, item] of Object.entries((doc.webhooks ?? {}) as Record<string, { post: Schema }>)) {
    const content = item.post.requestBody?.content?.['application/json'];
    if (content?.schema) content.example = recorded.events[type] ?? sampleOf(content.schema, doc);
  }
  return doc;
}

/** The values of a path template's parameters in a path that matches it (`/orders/{externalOrderId}`, `/orders/o-1`: `o-1`). */
export function pathValues(template: string, path: string): Record<string, string> {
  const groups = pathPattern(template).exec(path.split('?')[0]!)?.groups ?? {};
  return Object.fromEntries(Object.entries(groups).map(([name, value]) => [name, decodeURIComponent(value)]));
}

/** An operation's recorded request (method, path, body) and the answer it got. */
export interface RecordedAnswer {
  operationId: string;
  method: string;
  path: string;
  body?: unknown;
  status: number;
  answer: unknown;
}
export interface RecordedExamples {
  answers: RecordedAnswer[];
  events: Record<string, unknown>;
  /** Every order the run created. */
  orders: string[];
}

/** The answers and events of contract/recorded-examples.json (none before the first recording). */
export function recordedExamples(): RecordedExamples {
  const file = join(import.meta.dirname, 'recorded-examples.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as RecordedExamples) : { answers: [], events: {}, orders: [] };
}

/** The request bodies of contract/examples.json, which test/e2e/contract-examples.test.ts sends. */
export function requestExamples(): RequestExample[] {
  return (JSON.parse(readFileSync(join(import.meta.dirname, 'examples.json'), 'utf8')) as { requests: RequestExample[] }).requests;
}
