/**
 * The API's vocabulary: its base path and what a route declares. The list of routes itself,
 * with their handlers, is `functions/routes.ts`; each handler is given its route when it is
 * built, so nothing in `shared/` looks a route up.
 */
import type { Scope } from './scopes.ts';

export const BASE_PATH = '/api/v1/commerce';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  /** Stable operation name: OpenAPI operationId, log field `route`, Lambda name suffix. */
  readonly operationId: string;
  readonly method: HttpMethod;
  /** API Gateway resource path, relative to BASE_PATH, with `{param}` placeholders. */
  readonly path: string;
  readonly scope: Scope;
  /** Handler module, relative to the repository root; it exports `handler` and `contract`. */
  readonly handler: string;
  readonly summary: string;
  /** DynamoDB actions the handler uses beyond the pipeline's own (least-privilege IAM). */
  readonly tableActions?: readonly ('Query' | 'BatchGetItem' | 'BatchWriteItem' | 'ConditionCheckItem')[];
  /** Queue actions the handler uses. */
  readonly queueActions?: readonly 'send'[];
  readonly tag: 'Discovery' | 'Catalog' | 'Customers' | 'Orders' | 'Results' | 'Sales rules' | 'Webhooks';
}

export const isMutation = (method: HttpMethod): boolean => method !== 'GET';

/** Matches a concrete request path (relative to BASE_PATH) to its route's path template. */
export function pathPattern(path: string): RegExp {
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)');
  return new RegExp(`^${source}$`);
}

/** The canonical request path of a route: BASE_PATH plus its template with each parameter percent-encoded. */
export const fillPath = (route: Pick<Route, 'path'>, params: Record<string, string | undefined> | null | undefined): string =>
  BASE_PATH + route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params?.[name] ?? ''));
