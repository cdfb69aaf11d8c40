/** The scopes an API key can hold (spec section 3); each route requires exactly one. */
export const SCOPES = [
  'commerce:read',
  'configuration:read',
  'catalog:read',
  'catalog:write',
  'customers:read',
  'customers:write',
  'customers:erase',
  'orders:read',
  'orders:write',
  'results:read',
  'rules:read',
  'rules:write',
  'webhooks:read',
  'webhooks:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);
