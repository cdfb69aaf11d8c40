/**
 * Holds every answer and every delivered event the tests see to the published contract
 * (contract/openapi.json), by an independent validator (Ajv), strictly: the published schemas
 * are open (clients ignore members they do not know), but the service itself must send no
 * member the contract does not declare, so here every object is closed to its declared members.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { ROUTES } from '#functions/routes.ts';
import { BASE_PATH } from '#shared/api/routes.ts';
import { repoRoot } from './paths.ts';

type Json = Record<string, unknown>;
const contract = JSON.parse(readFileSync(join(repoRoot, 'contract/openapi.json'), 'utf8')) as Json & {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
  webhooks: Record<string, unknown>;
};

/** Every object schema that lists its properties admits only those. */
const closed = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(closed);
  if (!value || typeof value !== 'object') return value;
  const copy = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, closed(v)])) as Json;
  if (copy.properties && typeof copy.properties === 'object' && !('additionalProperties' in copy)) copy.additionalProperties = false;
  return copy;
};

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addFormat('date-time', (s: string) => RFC3339.test(s) && !Number.isNaN(Date.parse(s)));
ajv.addSchema(closed(contract) as Json, 'strict-contract.json');

const pointerSegment = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
const validators = new Map<string, ValidateFunction>();
const validatorAt = (...segments: string[]) => {
  const ref = `strict-contract.json#/${segments.map(pointerSegment).join('/')}`;
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  return validate;
};
const problems = (validate: ValidateFunction, body: unknown) =>
  validate(body)
    ? []
    : (validate.errors ?? []).map(
        (e) => `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? `: ${String(e.params.additionalProperty)}` : ''}`,
      );

// Paths with fewer parameters first, so `/products/batch` is never taken for `/products/{id}`.
const templates = [...ROUTES]
  .sort((a, b) => (a.path.match(/\{/g)?.length ?? 0) - (b.path.match(/\{/g)?.length ?? 0))
  .map((route) => ({ route, pattern: new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}$`) }));

/** What is wrong with an answer the service gave, as the contract sees it; empty when nothing is. */
export function answerViolations(method: string, path: string, status: number, contentType: string | null, body: unknown): string[] {
  const relative = path.startsWith(BASE_PATH) ? path.slice(BASE_PATH.length) : path;
  const matched = templates.find((t) => t.route.method === method && t.pattern.test(relative))?.route;
  const media = contentType?.split(';')[0]?.trim() ?? '';
  if (body === undefined) return [];
  if (!matched) {
    // No operation (an unknown path or method): the pipeline's own problem document.
    return media === 'application/problem+json'
      ? problems(validatorAt('components', 'schemas', 'Problem'), body)
      : [`${status} ${media} where no operation answers`];
  }
  const response = contract.paths[matched.path]?.[method.toLowerCase()]?.responses[String(status)];
  if (!response) return [`status ${status} is not declared for ${matched.operationId}`];
  if (!response.content?.[media]) return [`${media || 'no content type'} is not declared for ${matched.operationId} ${status}`];
  return problems(validatorAt('paths', matched.path, method.toLowerCase(), 'responses', String(status), 'content', media, 'schema'), body);
}

/** What is wrong with a delivered event's body, as the contract's webhooks section describes it. */
export function eventViolations(raw: string): string[] {
  let event: { event_type?: unknown };
  try {
    event = JSON.parse(raw);
  } catch {
    return ['the body is not JSON'];
  }
  const type = String(event.event_type);
  if (!(type in contract.webhooks)) return [`event_type ${type} is not in the contract`];
  return problems(validatorAt('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema'), event);
}

/** What is wrong with `body` as the schema at `segments` of the contract (strictly) sees it. */
export const violationsAt = (segments: string[], body: unknown): string[] => problems(validatorAt(...segments), body);
