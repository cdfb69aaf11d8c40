/**
 * Test-side access to the shared local stack: environment for direct calls against
 * DynamoDB Local and the emulator, fresh tenants with keys, and signed HTTP requests.
 */
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { BASE_PATH } from '#shared/api/routes.ts';
import { SCOPES, type Scope } from '#shared/api/scopes.ts';
import { type QueryParameters, signRequest } from '#shared/auth/signing.ts';
import { answerViolations } from './contract.ts';

const stack = inject('stack');
Object.assign(process.env, stack.env);
export const baseUrl = stack.baseUrl;

const { createApiKey } = await import('#shared/auth/api-keys.ts');
const { putTenantConfig } = await import('#shared/tenants/config-writer.ts');
const { localDeploymentCalls } = await import('#local/deployment.ts');

/** Ready to call (a market) and a rate limit no functional test reaches. */
export const DEFAULT_TEST_CONFIG = {
  markets: [{ country: 'DE', locale_default: 'de-DE', calling_days: [1, 2, 3, 4, 5, 6, 7] }],
  rate_limit: { requests_per_second: 1000, burst: 2000 },
};

export interface TestKey {
  tenant: string;
  keyId: string;
  secret: string;
}

/** A new tenant (unique per call, so test files never share data) with one key. */
export async function newTenant(options: { scopes?: readonly Scope[]; config?: unknown } = {}): Promise<TestKey> {
  const tenant = `t-${randomUUID().slice(0, 12)}`;
  await putTenantConfig(tenant, options.config ?? DEFAULT_TEST_CONFIG, localDeploymentCalls());
  const key = await createApiKey(tenant, [...(options.scopes ?? SCOPES)]);
  return { tenant, keyId: key.key_id, secret: key.secret };
}

export async function keyFor(tenant: string, scopes: readonly Scope[]): Promise<TestKey> {
  const key = await createApiKey(tenant, [...scopes]);
  return { tenant, keyId: key.key_id, secret: key.secret };
}

export interface CallOptions {
  query?: Record<string, string | string[]>;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  idempotencyKey?: string | null;
  /** Signs a different request than the one sent (tampering tests). */
  tamper?: (signed: { path: string; query: QueryParameters; body: string | Buffer }) => { path?: string; query?: QueryParameters; body?: string | Buffer };
  timestamp?: string;
  nonce?: string;
  unsigned?: boolean;
}

export interface CallResult {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

const encodeQuery = (query: QueryParameters) =>
  Object.entries(query)
    .flatMap(([k, vs]) => (vs ?? []).map((v) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`))
    .join('&');

/** Sends a request signed per contract-decisions section 1 through the local gateway. */
export async function call(key: TestKey, method: string, relativePath: string, options: CallOptions = {}): Promise<CallResult> {
  const path = BASE_PATH + relativePath;
  const query: QueryParameters = Object.fromEntries(Object.entries(options.query ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]));
  const body = options.rawBody ?? (options.body === undefined ? '' : JSON.stringify(options.body));
  const signedPart = options.tamper ? { path, query, body, ...options.tamper({ path, query, body }) } : { path, query, body };
  const headers: Record<string, string> = {
    ...(options.unsigned
      ? {}
      : signRequest(key, {
          method,
          path: signedPart.path,
          query: signedPart.query,
          body: signedPart.body,
          nonce: options.nonce ?? randomUUID(),
          ...(options.timestamp ? { timestamp: options.timestamp } : {}),
        })),
    ...(body.length ? { 'Content-Type': 'application/json' } : {}),
    ...(method !== 'GET' && options.idempotencyKey !== null ? { 'Idempotency-Key': options.idempotencyKey ?? randomUUID() } : {}),
    ...options.headers,
  };
  const qs = encodeQuery(query);
  const response = await fetch(`${baseUrl.slice(0, -BASE_PATH.length)}${path}${qs ? `?${qs}` : ''}`, {
    method,
    headers,
    ...(body.length ? { body } : {}),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  // Every answer a test sees is one the contract describes, member for member.
  const violations = answerViolations(method, path, response.status, response.headers.get('content-type'), parsed);
  if (violations.length) throw new Error(`${method} ${path} answered ${response.status} outside the contract: ${violations.slice(0, 5).join('; ')}`);
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** Fills a route path template with sample parameter values. */
export const samplePath = (template: string, value = 'sample-id') => template.replace(/\{\w+\}/g, encodeURIComponent(value));
