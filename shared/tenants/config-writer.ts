/** Writing a tenant's configuration: validated here, where it enters the table, and read back by the functions as stored. */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';
import { type TenantConfig, TenantConfigSchema } from './config.ts';
import { readTenantConfig } from './store.ts';
import { LIVE_MIN_RETRY_DELAY_SECONDS } from './tenant-config.ts';

/** A configuration the deployment cannot honour for real customers (a live tenant with no platform, no caller id, too short a retry delay). */
export class TenantConfigRefusedError extends Error {
  override readonly name = 'TenantConfigRefusedError';
}

/** What the deployment offers tenants: the call platform of its live tenants (`sandbox`: none) and the countries it has a caller id for. */
export interface DeploymentCalls {
  callPlatform: string;
  /** The countries with a claimed number live calls come from (`connectCallerIds`); absent: none. */
  callerIdCountries?: readonly string[];
}

/**
 * Why a live configuration cannot be honoured for real customers; empty when it can (and for
 * every sandbox configuration). A live tenant's customers are called through the deployment's
 * call platform, never by the simulation; each of its markets' customers sees a number of their
 * own country; and nobody is called back within minutes.
 */
export function liveConfigProblems(tenant: string, config: TenantConfig, deployment: DeploymentCalls): string[] {
  if (config.mode !== 'live') return [];
  if (deployment.callPlatform === 'sandbox') {
    return [
      `tenant ${tenant} cannot be live on this deployment: it has no call platform for live calls (CALL_PLATFORM=sandbox), so its customers could not be called. ` +
        'Deploy with a live call platform (-c callPlatform=connect), or keep "mode": "sandbox".',
    ];
  }
  const problems: string[] = [];
  const withCallerId = new Set(deployment.callerIdCountries ?? []);
  const without = config.markets.map((m) => m.country).filter((country) => !withCallerId.has(country));
  if (without.length > 0) {
    problems.push(
      `market ${without.join(', ')} has no caller id on this deployment, so its customers would see another country's number: ` +
        `add it to -c connectCallerIds (the deployment has ${[...withCallerId].join(', ') || 'none'}), or remove the market.`,
    );
  }
  const delay = config.call_retry_delay_seconds;
  if (delay !== null && delay < LIVE_MIN_RETRY_DELAY_SECONDS) {
    problems.push(
      `call_retry_delay_seconds is ${delay}: a live tenant's customers are called again no sooner than ${LIVE_MIN_RETRY_DELAY_SECONDS} s after a missed call.`,
    );
  }
  return problems;
}

/** Throws when `config` is refused on this deployment (see `liveConfigProblems`). */
export function checkTenantConfig(tenant: string, config: TenantConfig, deployment: DeploymentCalls): void {
  const problems = liveConfigProblems(tenant, config, deployment);
  if (problems.length > 0) throw new TenantConfigRefusedError(problems.join('\n'));
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `changes` over `base`: every field `changes` names replaces the one in `base`; objects are merged field by field, arrays replaced whole. */
export function mergeConfig(base: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [field, value] of Object.entries(changes)) {
    const before = merged[field];
    merged[field] = isPlainObject(before) && isPlainObject(value) ? mergeConfig(before, value) : value;
  }
  return merged;
}

/** Each field (by its dotted path) whose value differs between two configurations, as `path: before → after`. */
export function configChanges(before: TenantConfig | undefined, after: TenantConfig): string[] {
  const changes: string[] = [];
  const walk = (path: string, a: unknown, b: unknown) => {
    if (isPlainObject(a) && isPlainObject(b)) {
      for (const field of new Set([...Object.keys(a), ...Object.keys(b)])) walk(path ? `${path}.${field}` : field, a[field], b[field]);
      return;
    }
    if (JSON.stringify(a) !== JSON.stringify(b)) changes.push(`${path}: ${a === undefined ? '(none)' : JSON.stringify(a)} → ${JSON.stringify(b)}`);
  };
  walk('', before ?? {}, after);
  return changes;
}

export interface TenantConfigWrite {
  config: TenantConfig;
  /** The configuration before the write (undefined: the tenant had none). */
  before: TenantConfig | undefined;
  /** What changed, field by field (`mode: "sandbox" → "live"`). */
  changes: string[];
}

/**
 * Writes a tenant's configuration. By default `input` changes only the fields it names, over the
 * stored configuration (a new tenant starts from the defaults), so a file of one field can never
 * turn a live tenant back into a sandbox one; `replace` makes `input` the whole configuration.
 */
export async function putTenantConfig(
  tenant: string,
  input: unknown,
  deployment: DeploymentCalls,
  options: { replace?: boolean; now?: Date } = {},
): Promise<TenantConfigWrite> {
  const before = await readTenantConfig(tenant, { consistent: true });
  const whole = options.replace || !before || !isPlainObject(input) ? input : mergeConfig(before as unknown as Record<string, unknown>, input);
  const config = TenantConfigSchema.parse(whole);
  checkTenantConfig(tenant, config, deployment);
  await tableClient().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.tenantConfig(tenant), entity: 'tenant', tenant, config, updated_at: (options.now ?? new Date()).toISOString() },
    }),
  );
  return { config, before, changes: configChanges(before, config) };
}
