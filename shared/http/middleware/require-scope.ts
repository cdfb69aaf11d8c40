/** 403 unless the authenticated key holds the route's scope. */
import type { Route } from '../../api/routes.ts';
import { InsufficientScopeError } from '../../errors.ts';
import type { HttpMiddleware } from './types.ts';

export const requireScope = (route: Pick<Route, 'scope'>): HttpMiddleware => ({
  before: ({ context: { http } }) => {
    if (!http.principal!.scopes.includes(route.scope)) throw new InsufficientScopeError(route.scope);
  },
});
