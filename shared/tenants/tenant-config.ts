/**
 * A tenant's configuration as the functions read it (contract-decisions section 9), with the
 * defaults a missing field keeps. No schema library here: the configuration is validated
 * where it is written (the admin CLI, through `config.ts`), and every function reads it; a
 * function that built the schema only to re-check what its writer checked paid for it in
 * every cold start (README, performance: cold start).
 */
export interface Market {
  country: string;
  locale_default: string;
  calling_days: number[];
  /** The store's name in this market, where it differs from the tenant's `display_name`. */
  display_name?: string | undefined;
  /** Where this market's customers are: its calling hours are their local time (default: the tenant's `quiet_hours.timezone`). */
  timezone?: string | undefined;
  /** This market's quiet hours, in its time zone (default: the tenant's). */
  quiet_hours?: { dont_call_hour_start: number; dont_call_hour_end: number } | undefined;
}

/** Sandbox tenants' calls go to the simulated network; live tenants' to the deployment's call platform, never to the simulation. */
export const TENANT_MODES = ['sandbox', 'live'] as const;
export type TenantMode = (typeof TENANT_MODES)[number];

export interface TenantConfig {
  status: 'active' | 'suspended';
  mode: TenantMode;
  /** The store's name as its customers know it, said when they are called; null: the tenant id. */
  display_name: string | null;
  markets: Market[];
  quiet_hours: { timezone: string; dont_call_hour_start: number; dont_call_hour_end: number };
  features_enabled: { upsell: boolean; repurchase_intent: boolean };
  /**
   * Whether results are written back to the store, and where: the store's endpoint (set by the
   * platform team; its signing secret is `admin writeback rotate-secret`'s). Without one a
   * sandbox tenant's results go to the sandbox store.
   */
  writeback: { enabled: boolean; url: string | null };
  max_call_attempts: number;
  /**
   * The least time between an attempt that did not decide the order and the next (null: the
   * mode's default, `RETRY_DELAY_SECONDS`); a live tenant's is at least `LIVE_MIN_RETRY_DELAY_SECONDS`.
   */
  call_retry_delay_seconds: number | null;
  rate_limit: { requests_per_second: number; burst: number };
}

/** A configuration as stored: written whole, but by an older version, so a field added since is missing. */
export type StoredTenantConfig = {
  [K in keyof TenantConfig]?: TenantConfig[K] extends unknown[] ? TenantConfig[K] : K extends 'quiet_hours' ? TenantConfig[K] : Partial<TenantConfig[K]>;
};

export const TENANT_DEFAULTS: Readonly<TenantConfig> = {
  status: 'active',
  mode: 'sandbox',
  display_name: null,
  markets: [],
  quiet_hours: { timezone: 'Europe/Berlin', dont_call_hour_start: 21, dont_call_hour_end: 8 },
  features_enabled: { upsell: true, repurchase_intent: true },
  writeback: { enabled: false, url: null },
  max_call_attempts: 3,
  call_retry_delay_seconds: null,
  rate_limit: { requests_per_second: 50, burst: 100 },
};

export const TENANT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * How soon a customer is called again by default: half an hour for real customers (a redial
 * within minutes of a missed call is what a person resents most), at once in the sandbox.
 */
export const RETRY_DELAY_SECONDS: Readonly<Record<TenantMode, number>> = { live: 1800, sandbox: 2 };
/** A live tenant's customers are never called again sooner than this. */
export const LIVE_MIN_RETRY_DELAY_SECONDS = 600;
/** The largest retry delay a configuration may name: a day. */
export const MAX_RETRY_DELAY_SECONDS = 86_400;

/** The least time between a tenant's undecided attempt and the next. */
export const retryDelaySecondsOf = (config: TenantConfig): number => config.call_retry_delay_seconds ?? RETRY_DELAY_SECONDS[config.mode];

/** How a new key id of a tenant in `mode` begins. */
export const keyIdPrefix = (mode: TenantMode): string => (mode === 'live' ? 'key_live_' : 'key_test_');

/** The store's name a customer of `market` hears. */
export const storeNameFor = (tenant: string, config: TenantConfig, market: Market | undefined): string => market?.display_name ?? config.display_name ?? tenant;

/** `stored` with every missing field at its default, exactly as the schema's defaults fill it (a property test holds the two together). */
export function withTenantDefaults(stored: StoredTenantConfig = {}): TenantConfig {
  const d = TENANT_DEFAULTS;
  return {
    status: stored.status ?? d.status,
    mode: stored.mode ?? d.mode,
    display_name: stored.display_name ?? d.display_name,
    markets: stored.markets ?? [],
    quiet_hours: stored.quiet_hours ?? { ...d.quiet_hours },
    features_enabled: {
      upsell: stored.features_enabled?.upsell ?? d.features_enabled.upsell,
      repurchase_intent: stored.features_enabled?.repurchase_intent ?? d.features_enabled.repurchase_intent,
    },
    writeback: { enabled: stored.writeback?.enabled ?? d.writeback.enabled, url: stored.writeback?.url ?? d.writeback.url },
    max_call_attempts: stored.max_call_attempts ?? d.max_call_attempts,
    call_retry_delay_seconds: stored.call_retry_delay_seconds ?? d.call_retry_delay_seconds,
    rate_limit: {
      requests_per_second: stored.rate_limit?.requests_per_second ?? d.rate_limit.requests_per_second,
      burst: stored.rate_limit?.burst ?? d.rate_limit.burst,
    },
  };
}
