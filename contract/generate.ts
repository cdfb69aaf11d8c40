/**
 * Generates the OpenAPI 3.1 contract from the route table and the zod schemas every handler
 * validates with. `npm run contract` writes contract/openapi.json; a test fails when the
 * committed file is out of date.
 */

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as z from 'zod/mini';
import { ROUTES } from '#functions/routes.ts';
import { FUNCTION_SETTINGS, WAF_RATE_LIMITS_PER_5_MINUTES } from '#infra/deployment-settings.ts';
import { CONTRACT_VERSION } from '#shared/api/contract-version.ts';
import { MAX_SALES_RULES } from '#shared/api/limits.ts';
import { BASE_PATH, isMutation, type Route } from '#shared/api/routes.ts';
import { SCOPES } from '#shared/api/scopes.ts';
import type { Schema } from '#shared/api/zod.ts';
import { JSON_LIMITS } from '#shared/http/json-shape.ts';
import type { OperationContract } from '#shared/http/operation.ts';
import { PROBLEM_CODES, type ProblemCode } from '#shared/http/problem.ts';
import { PROBLEM_GUIDE } from '#shared/http/problem-guide.ts';
import { ProblemSchema } from '#shared/http/problem-schema.ts';
import { CALLS_PER_TENANT_PER_SWEEP } from '#shared/orders/due-sweep.ts';
import { CONTACT_HORIZON_DAYS } from '#shared/orders/order-schemas.ts';
import { ENDPOINT_SLOTS } from '#shared/webhooks/endpoint-guard.ts';
import { WEBHOOK_SEND_LIMIT } from '#shared/webhooks/send-limit.ts';
import { OPENAPI_FILE } from './docs.ts';
import { withExamples } from './samples.ts';
import { WEBHOOKS_DESCRIPTION, webhooksSection } from './webhooks.ts';

export { OPENAPI_FILE };

type JsonSchema = Record<string, unknown>;
const repoRoot = join(import.meta.dirname, '..');

/** The JSON value without the members `drop` names, at every depth. */
function withoutMembers<T>(value: T, drop: (key: string, member: unknown) => boolean): T {
  if (Array.isArray(value)) return value.map((item) => withoutMembers(item, drop)) as T;
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, member]) => !drop(key, member))
      .map(([key, member]) => [key, withoutMembers(member, drop)]),
  ) as T;
}

/**
 * What the service sends may gain members in a compatible change (contract README: clients
 * ignore members they do not know), so every output schema is published open: no
 * `additionalProperties: false`. Requests stay closed: an unknown member sent is a 422.
 */
const opened = <T>(value: T): T => withoutMembers(value, (key, member) => key === 'additionalProperties' && member === false);

/** JSON Schema's safe-integer bound, which zod writes for every integer. */
const SAFE_INTEGER = 9007199254740991;

/** The contract without the bounds of ±2^53 − 1: they bound nothing a client sends and read as noise in every reference. */
const withoutSafeIntegerBounds = <T>(value: T): T =>
  withoutMembers(value, (key, member) => (key === 'minimum' || key === 'maximum') && Math.abs(member as number) === SAFE_INTEGER);

class Components {
  readonly schemas: Record<string, JsonSchema> = {};

  /** Converts a zod schema, moving every schema with an id into components.schemas. */
  add(schema: Schema, io: 'input' | 'output'): JsonSchema {
    const converted = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
    const json = (io === 'output' ? opened(converted) : converted) as JsonSchema;
    const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
    delete json.$defs;
    delete json.$schema;
    const renames: Record<string, string> = {};
    for (const [id, def] of Object.entries(defs)) {
      const existing = this.schemas[id];
      const name = existing && JSON.stringify(existing) !== JSON.stringify(def) ? `${id}${io === 'input' ? 'Input' : 'Output'}` : id;
      renames[id] = name;
      this.schemas[name] = def;
    }
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value && typeof value === 'object') {
        return Object.fromEntries(
          Object.entries(value).map(([k, v]) => [
            k,
            k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/') ? `#/components/schemas/${renames[v.slice(8)] ?? v.slice(8)}` : rewrite(v),
          ]),
        );
      }
      return value;
    };
    for (const name of Object.values(renames)) this.schemas[name] = rewrite(this.schemas[name]) as JsonSchema;
    return rewrite(json) as JsonSchema;
  }
}

const TAG_DESCRIPTIONS: Record<Route['tag'], string> = {
  Discovery: 'Capabilities and the effective configuration of the calling tenant.',
  Catalog: 'Products and variants; removal archives (tombstone).',
  Customers: 'Customer profiles with contact consent and its proof; GDPR anonymization.',
  Orders: 'Order submission and lifecycle.',
  Results: 'Order results and call attempts.',
  'Sales rules': 'Replacement, upsell, cross-sell, quantity and price constraints.',
  Webhooks: 'The webhook subscription, its signing secret and the delivery log.',
};
const WEBHOOK_EVENTS_TAG = { name: 'Webhook events', description: 'What the service POSTs to the subscription URL: one entry per event type.' };

/** What any operation can answer: authentication, scope, routing, limits, validation, rate and availability, and the gateway's own. */
const COMMON_PROBLEMS: ProblemCode[] = [
  'bad_request',
  'invalid_signature',
  'expired_timestamp',
  'replay_nonce',
  'insufficient_scope',
  'resource_not_found',
  'method_not_allowed',
  'payload_too_large',
  'unsupported_media_type',
  'validation_failed',
  'rate_limited',
  'internal_error',
  'tenant_unavailable',
  'gateway_timeout',
];
const MUTATION_PROBLEMS: ProblemCode[] = ['idempotency_key_reused'];

/** Every problem code with its status, title, what it means and what to do: the reference page's Problems section, where `doc_url` points. */
const PROBLEMS = Object.fromEntries((Object.keys(PROBLEM_CODES) as ProblemCode[]).map((code) => [code, { ...PROBLEM_CODES[code], ...PROBLEM_GUIDE[code] }]));

const DESCRIPTION = `Partner-facing API: catalog, customers with consent, sales rules, orders for automated phone-call processing, results, call history and signed webhooks.

## Authentication (HMAC)
Every request carries the five X-SVC headers of the \`hmac\` security scheme, which describes the string to sign.
Checks in order: headers, key, body hash and signature (401 invalid_signature), timestamp within 300 s (401 expired_timestamp), nonce unused within the window (401 replay_nonce), scope (403 insufficient_scope).

## Idempotency
Every mutation carries Idempotency-Key (1 to 255 printable ASCII). Scope: (tenant, key); retention 24 h. A retry with the same method, path and body replays the stored response with Idempotent-Replayed: true; a different request with the same key gives 409 idempotency_key_reused (reason payload_mismatch); while the first is running, 409 with reason in_progress and Retry-After: 1. 5xx responses are not stored.

## Errors
application/problem+json with type, title, status, code, detail, instance, request_id; validation failures list every offending field in errors[] with a JSON Pointer. Every response carries X-Request-Id. \`type\` is a URN that never changes, to match on; \`doc_url\` (where the deployment names its reference page, always on the local runtime) opens the code's entry in this reference's Problems section: what it means and what to do. \`x-problems\` lists every code.

## Limits
Request body 2 MiB (413 payload_too_large); any array longer than ${JSON_LIMITS.arrayItems.toLocaleString('en')} items is 413 too, however few bytes it has, and nesting deeper than ${JSON_LIMITS.depth} levels is 422. Page limit 1..200 (default 50), per-key rate limit (default 50 requests per second with bursts of 100; 429 rate_limited with Retry-After). A suspended tenant gets 503 tenant_unavailable with Retry-After.
At the edge: signed requests at most ${WAF_RATE_LIMITS_PER_5_MINUTES.perKeyAndAddress.toLocaleString('en')} per key id and source address in 5 minutes (above any rate a key is granted), requests without well-formed X-SVC headers at most ${WAF_RATE_LIMITS_PER_5_MINUTES.unsignedPerAddress} per source address in 5 minutes; past either, 429 rate_limited with Retry-After: 60.
Per tenant: at most ${MAX_SALES_RULES} sales rules that are not archived (409 limit_reached); test and replay deliveries at most ${WEBHOOK_SEND_LIMIT.burst} in ${WEBHOOK_SEND_LIMIT.burst / WEBHOOK_SEND_LIMIT.requests_per_second} s (429); \`contact_not_before\` at most ${CONTACT_HORIZON_DAYS} days ahead (422). Partner ids are at most 255 bytes in UTF-8. A webhook endpoint gets at most ${ENDPOINT_SLOTS} attempts at once.

## Retention
Idempotency records 24 h; events and webhook deliveries, with their attempt logs, 35 days; orders, their call attempts (with a sandbox tenant's transcripts) and results as long as the tenant keeps them, their customer's data blanked by an erasure. Live calls are neither recorded nor transcribed.

## Sandbox
A sandbox tenant's calls go to a simulated network whose customer hears the real conversation and behaves by the last digit of their phone number: 0, 6, 7 answer and confirm; 1 never answers; 2 answers the second call and confirms; 3 answers and cancels; 4 answers and takes the suggestion of an applicable upsell or cross-sell rule (confirms when there is none); 5 is busy, then answers and confirms; 8 answers and confirms, and the write-back to the store fails; 9 is not a valid number.

## Fairness
One deployment serves every tenant. \`priority\` orders a tenant's own orders only: each call sweep serves tenants in turn, at most ${CALLS_PER_TENANT_PER_SWEEP} orders of one tenant per sweep, so another tenant's backlog delays your due calls by at most one sweep (${FUNCTION_SETTINGS.callSchedulerEveryMinutes} min). Webhook queue messages are grouped by tenant (SQS fair queues), an endpoint's attempts are capped and a failing endpoint is paused as a whole (its circuit breaker), so a slow or failing endpoint delays only its own tenant's deliveries.

## Retries
Retry 429, 503 and other 5xx answers and network errors with the same Idempotency-Key (a new nonce and timestamp each time): wait Retry-After when given, else a random time up to an exponentially growing cap (full jitter). A 409 with Retry-After (the first request with that key is still running) is retried the same way.

## Versions and compatibility
\`contract_version\` (GET /capabilities, \`info.version\`) is raised on every change to this contract; contract/CHANGELOG.md lists each change, breaking ones under **Breaking**. Within /api/v1 the service may, without notice: add operations, optional request members, members of answers and events, event types, problem codes and \`reason\` values. Clients ignore members they do not know, treat an unknown problem code by its HTTP status, and an unknown \`reason\` as other. Anything else (removing or renaming, a new required request member, accepting less, changing a meaning) is breaking: once v1 is final (no \`-draft\` in the version) it comes only as /api/v2, and v1 is served for at least 12 months after v2 is published. What is to be removed is announced at least 6 months ahead: its answers carry \`Deprecation\` (RFC 9745, the announcement time) and \`Sunset\` (RFC 8594, the removal date) with \`Link: <changelog>; rel="deprecation"\`. While the version is a draft, breaking changes are still made, each in the changelog and announced to pilot partners 14 days before it is deployed.

${WEBHOOKS_DESCRIPTION}`;

async function loadContract(handlerModule: string): Promise<OperationContract> {
  // A handler module builds its function's clients at import (no network call), which needs a
  // table name; the generator only reads the module's `contract`.
  process.env.TABLE_NAME ??= 'contract-generation';
  const mod = (await import(pathToFileURL(join(repoRoot, handlerModule)).href)) as { contract: OperationContract };
  return mod.contract;
}

/** Every `{name}` of the route path: from the contract's params schema, else a plain string. */
function pathParameters(routePath: string, schema: Schema | undefined, components: Components) {
  const declared = parametersOf(schema, 'path', components);
  const names = [...routePath.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return names.map(
    (name) => declared.find((p) => p.name === name) ?? { name, in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 255 } },
  );
}

function parametersOf(schema: Schema | undefined, location: 'path' | 'query', components: Components) {
  if (!schema) return [];
  const json = components.add(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    ...(s.description ? { description: s.description } : {}),
    schema: s,
  }));
}

/** The problem statuses that carry `Retry-After` (429 rate_limited, 409 in_progress, 503 tenant_unavailable, 504 gateway_timeout). */
const RETRY_AFTER_STATUSES = new Set([409, 429, 503, 504]);

/** The responses of an operation: its success responses, then one problem response per status it can answer. */
function responsesOf(route: Route, contract: OperationContract, components: Components, problemRef: unknown): Record<string, unknown> {
  const mutation = isMutation(route.method);
  const problems = new Set<ProblemCode>([...COMMON_PROBLEMS, ...(mutation ? MUTATION_PROBLEMS : []), ...((contract.problems ?? []) as ProblemCode[])]);
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(contract.responses)) {
    responses[status] = {
      description: response.description,
      headers: {
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
        // A mutation's answer replayed for a retry with the same Idempotency-Key says so.
        ...(mutation ? { 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } } : {}),
      },
      ...(response.schema ? { content: { 'application/json': { schema: components.add(response.schema, 'output') } } } : {}),
    };
  }
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of problems) byStatus.set(PROBLEM_CODES[code].status, [...(byStatus.get(PROBLEM_CODES[code].status) ?? []), code]);
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: codes.join(', '),
      headers: {
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
        // Throttled, unavailable or still in progress: when to try again.
        ...(RETRY_AFTER_STATUSES.has(status) ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {}),
      },
      content: { 'application/problem+json': { schema: problemRef } },
    };
  }
  return responses;
}

function operationOf(route: Route, contract: OperationContract, components: Components, problemRef: unknown) {
  // Responses first: components are numbered in the order they are met.
  const responses = responsesOf(route, contract, components, problemRef);
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(contract.description ? { description: contract.description } : {}),
    tags: [route.tag],
    security: [{ hmac: [route.scope] }],
    'x-required-scope': route.scope,
    parameters: [
      ...pathParameters(route.path, contract.params, components),
      ...parametersOf(contract.query, 'query', components),
      ...(isMutation(route.method) ? [{ $ref: '#/components/parameters/Idempotency-Key' }] : []),
    ],
    ...(contract.body
      ? {
          // An operation that accepts no body as well (cancel, rotate) declares its body optional.
          requestBody: {
            required: (contract.body as { _zod?: { optin?: string } })._zod?.optin !== 'optional',
            content: { 'application/json': { schema: components.add(contract.body, 'input') } },
          },
        }
      : {}),
    responses,
  };
}

const SECURITY_SCHEMES = {
  hmac: {
    type: 'apiKey',
    in: 'header',
    name: 'X-SVC-Key-Id',
    description: `HMAC request signing. Every request carries five headers, which a client adds itself (the partner client in \`client/\` does):

| header | value |
|---|---|
| X-SVC-Key-Id | the key id |
| X-SVC-Timestamp | RFC 3339 UTC, e.g. 2026-11-22T14:05:09Z; within 300 s of the server's time |
| X-SVC-Nonce | 1 to 128 of [A-Za-z0-9._~-], unused by this key within 300 s |
| X-SVC-Content-SHA256 | lower-case hex SHA-256 of the raw body (of the empty string without one) |
| X-SVC-Signature | \`hmac-sha256=\` + lower-case hex HMAC-SHA256(secret, string to sign) |

The string to sign is seven lines joined by \\n, without a trailing newline: METHOD; PATH (the full path from ${BASE_PATH}, path parameters encodeURIComponent-encoded, no query); QUERY (parameters sorted by name then value, each encodeURIComponent(name)=encodeURIComponent(value), joined by &; empty without a query); KEY_ID; TIMESTAMP (exactly as sent); NONCE; CONTENT_SHA256. Test vectors: contract/signing-vectors.json. Scopes: ${SCOPES.join(', ')}.`,
  },
};

const PARAMETERS = {
  'Idempotency-Key': {
    name: 'Idempotency-Key',
    in: 'header',
    required: true,
    description: 'Required on every mutation: 1 to 255 printable ASCII characters; retained 24 h per tenant.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]{1,255}$' },
  },
};

export async function buildOpenApi(): Promise<Record<string, unknown>> {
  const components = new Components();
  const problemRef = components.add(ProblemSchema, 'output');
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const contract = await loadContract(route.handler);
    if (contract.operationId !== route.operationId) throw new Error(`${route.handler} declares ${contract.operationId}, the route table ${route.operationId}`);
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operationOf(route, contract, components, problemRef) };
  }
  const webhooks = webhooksSection((schema, io) => components.add(schema, io));
  return withExamples(
    withoutSafeIntegerBounds({
      openapi: '3.1.0',
      info: {
        title: 'Commerce Interface v1',
        version: CONTRACT_VERSION,
        description: DESCRIPTION,
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: `{origin}${BASE_PATH}`, description: 'A deployment or the local runtime', variables: { origin: { default: 'http://127.0.0.1:3000' } } }],
      tags: [...Object.entries(TAG_DESCRIPTIONS).map(([name, description]) => ({ name, description })), WEBHOOK_EVENTS_TAG],
      security: [{ hmac: [] }],
      paths,
      webhooks,
      'x-problems': PROBLEMS,
      components: {
        securitySchemes: SECURITY_SCHEMES,
        parameters: PARAMETERS,
        headers: {
          'X-Request-Id': { description: 'Identifier of this request; quote it to support.', schema: { type: 'string' } },
          'Retry-After': { description: 'Seconds to wait before retrying with the same Idempotency-Key.', schema: { type: 'integer', minimum: 1 } },
          'Idempotent-Replayed': {
            description: 'Present (`true`) when this is the stored answer of an earlier request with the same Idempotency-Key.',
            schema: { type: 'string', enum: ['true'] },
          },
        },
        schemas: components.schemas,
      },
    }),
  );
}

export const renderOpenApi = async () => `${JSON.stringify(await buildOpenApi(), null, 2)}\n`;

/** Where each version's contract is kept as it was published: a version names one contract, never two. */
export const publishedFile = (version: string) => fileURLToPath(new URL(`./published/${version}.json`, import.meta.url));

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rendered = await renderOpenApi();
  const snapshot = publishedFile(CONTRACT_VERSION);
  if (existsSync(snapshot) && readFileSync(snapshot, 'utf8') !== rendered) {
    console.error(
      `npm run contract: the contract changed under version ${CONTRACT_VERSION}, which names another one. ` +
        'Raise CONTRACT_VERSION (shared/api/contract-version.ts) and add its entry to contract/CHANGELOG.md.',
    );
    process.exit(1);
  }
  writeFileSync(OPENAPI_FILE, rendered);
  if (!existsSync(snapshot)) writeFileSync(snapshot, rendered);
  console.log(`wrote ${OPENAPI_FILE}`);
}
