/** What an order's processing reads about it before it decides: its customer, rules, configuration and variants. */

import type { ResolvedVariant } from '../catalog/variant-index.ts';
import type { StoredCustomer } from '../customers/customers.ts';
import { applicableRules } from '../rules/applicable-rules.ts';
import type { SalesRule } from '../rules/rule-schemas.ts';
import type { TenantConfigOf } from '../tenants/config-cache.ts';
import type { TenantConfig } from '../tenants/tenant-config.ts';
import type { StoredOrder } from './order.ts';

/** Everything qualification and the call need, read once per run. */
export interface Facts {
  customer: StoredCustomer | undefined;
  variants: Map<string, ResolvedVariant>;
  rules: SalesRule[];
  config: TenantConfig;
}

export interface FactsPorts {
  customers: { read(tenant: string, id: string): Promise<StoredCustomer | undefined> };
  variants: { resolve(tenant: string, ids: readonly string[]): Promise<Map<string, ResolvedVariant>> };
  /** The tenant's active sales rules (may be cached briefly). */
  rules: { active(tenant: string): Promise<SalesRule[]> };
  tenantConfigOf: TenantConfigOf;
}

/**
 * Everything qualification and the call need, read once: customer, rules, configuration, the
 * order's variants and then those that the rules applying to its lines point to. However many
 * rules a tenant has (at most MAX_SALES_RULES, cached), an order reads only its own variants
 * and its applicable rules' targets.
 */
export async function factsFor(ports: FactsPorts, order: StoredOrder): Promise<Facts> {
  const [customer, rules, config, lineVariants] = await Promise.all([
    ports.customers.read(order.tenant, order.external_customer_id),
    ports.rules.active(order.tenant),
    ports.tenantConfigOf(order.tenant),
    ports.variants.resolve(
      order.tenant,
      order.items.map((i) => i.external_variant_id),
    ),
  ]);
  const targets = applicableRules(order, lineVariants, rules)
    .flatMap(({ rule }) => ['replacement_variant', 'suggest_variant'].map((k) => rule.action[k]))
    .filter((v): v is string => typeof v === 'string' && !lineVariants.has(v));
  const targetVariants = targets.length ? await ports.variants.resolve(order.tenant, [...new Set(targets)]) : new Map();
  return { customer, variants: new Map([...lineVariants, ...targetVariants]), rules, config };
}
