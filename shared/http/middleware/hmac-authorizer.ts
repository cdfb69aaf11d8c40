/** The "HMAC authorizer" of contract-decisions section 1, inside the function (it needs the body). */
import { type AuthPorts, authenticate } from '../../auth/authenticate.ts';
import { appendLogKeys } from '../../logging/logger.ts';
import type { HttpMiddleware } from './types.ts';

export function hmacAuthorizer(ports: AuthPorts): HttpMiddleware {
  return {
    before: async ({ event, context: { http } }) => {
      http.principal = await authenticate(
        { method: event.httpMethod, path: http.path, query: event.multiValueQueryStringParameters, headers: http.headers, body: http.body },
        ports,
      );
      appendLogKeys({ tenant: http.principal.tenant });
    },
  };
}
