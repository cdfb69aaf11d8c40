/**
 * Order processing: qualification, scheduling, call attempts and results. `advanceOrder`
 * takes an order as far as it can go now; the stream processor calls it when an order
 * changes, the call scheduler when an order's contact time comes. Every step is a
 * compare-and-set write, so concurrent runs for the same order cannot both act.
 */
import { tenantConfigOf } from '../auth/dynamodb-adapters.ts';
import { callPlatform, type AttemptReport } from '../calls/call-platform.ts';
import { resolveVariants } from '../catalog/variant-index.ts';
import { runtimeConfig } from '../config/runtime.ts';
import { readCustomer } from '../customers/customer-store.ts';
import { eventItem } from '../events/outbox.ts';
import { activeRules } from '../rules/rule-store.ts';
import { ttlCache } from '../caching/ttl-cache.ts';
import type { SalesRule } from '../rules/rule-schemas.ts';
import { keys } from '../storage/keys.ts';
import type { TenantConfig } from '../tenants/config.ts';
import type { BusinessOutcome, OrderResult } from './order-schemas.ts';
import { readOrder, RevisionConflict, writeOrder, type StoredOrder } from './order-store.ts';
import { qualify, type Qualification, type ResolvedVariant } from './qualification.ts';
import { nextContactAt, type CallingWindow } from './scheduler.ts';
import { acceptFirstSuggestion, effectiveLines, snapshotOf } from './snapshot.ts';
import { isFinal, type OrderState } from './state-machine.ts';

/** While an order waits for a variant to reach the variant index, qualification is retried this often. */
const QUALIFICATION_RETRY_MS = 2_000;

interface Facts {
  customer: Awaited<ReturnType<typeof readCustomer>>;
  variants: Map<string, ResolvedVariant>;
  rules: SalesRule[];
  config: TenantConfig;
}

/**
 * A tenant's rules change rarely and every order step reads them: they are cached in the
 * instance as briefly as keys and tenant configuration are.
 */
const rulesCache = ttlCache(
  (tenant) => activeRules(tenant),
  () => runtimeConfig().authCacheSeconds * 1000,
);

/** Everything qualification and the call need, read once: customer, variants (also those rules point to), rules, configuration. */
async function factsFor(order: StoredOrder): Promise<Facts> {
  const [customer, rules, config] = await Promise.all([
    readCustomer(order.tenant, order.external_customer_id),
    rulesCache.get(order.tenant),
    tenantConfigOf(order.tenant),
  ]);
  const ruleVariants = rules.flatMap((r) =>
    ['replacement_variant', 'suggest_variant'].map((k) => r.action[k]).filter((v): v is string => typeof v === 'string'),
  );
  const variants = await resolveVariants(order.tenant, [...order.items.map((i) => i.external_variant_id), ...ruleVariants]);
  return { customer, variants, rules, config };
}

function qualificationOf(order: StoredOrder, facts: Facts): Qualification {
  return qualify({
    order,
    customer: facts.customer ? { consent: facts.customer.consent.status, anonymized: Boolean(facts.customer.anonymized_at) } : undefined,
    variants: facts.variants,
    rules: facts.rules,
    repurchaseIntentEnabled: facts.config.features_enabled.repurchase_intent,
  });
}

/** For PATCH and upserts: qualify the new content at once. */
export async function requalify(order: StoredOrder) {
  const q = qualificationOf(order, await factsFor(order));
  return q.qualified
    ? { to: 'validated' as OrderState, reason: null, substitutions: q.substitutions }
    : { to: 'rejected' as OrderState, reason: q.reason, substitutions: [] };
}

function callingWindow(config: TenantConfig, locale: string | undefined): CallingWindow | undefined {
  const region = locale?.split('-')[1]?.toUpperCase();
  const market = config.markets.find((m) => m.country === region) ?? config.markets[0];
  if (!market) return undefined;
  return {
    timezone: config.quiet_hours.timezone,
    callingDays: market.calling_days,
    quietStartHour: config.quiet_hours.dont_call_hour_start,
    quietEndHour: config.quiet_hours.dont_call_hour_end,
  };
}

/** One step for the order in its current state: the order as written, or undefined when nothing is to be done now. */
async function step(order: StoredOrder, now: Date, factsOf: (order: StoredOrder) => Promise<Facts>): Promise<StoredOrder | undefined> {
  switch (order.processing_state) {
    case 'received': {
      const facts = await factsOf(order);
      const q = qualificationOf(order, facts);
      if (!q.qualified && q.reason === 'unknown_variant' && now.getTime() - Date.parse(order.created_at) < runtimeConfig().variantIndexGraceSeconds * 1000) {
        // The variant may have been imported a moment ago and not be indexed yet: the call
        // scheduler retries qualification shortly, without holding up the stream.
        if (order.retry_qualification_at && Date.parse(order.retry_qualification_at) > now.getTime()) return undefined;
        await writeOrder(order, { set: { retry_qualification_at: new Date(now.getTime() + QUALIFICATION_RETRY_MS).toISOString() } }, now);
        return undefined;
      }
      const cleared = { retry_qualification_at: undefined };
      return writeOrder(
        order,
        q.qualified ? { to: 'validated', set: { ...cleared, substitutions: q.substitutions } } : { to: 'rejected', reason: q.reason, set: cleared },
        now,
      );
    }
    case 'validated': {
      const facts = await factsOf(order);
      const window = callingWindow(facts.config, facts.customer?.locale);
      if (!window) return writeOrder(order, { to: 'rejected', reason: 'no_market_configured' }, now);
      const earliest = new Date(Math.max(now.getTime(), order.contact_not_before ? Date.parse(order.contact_not_before) : 0));
      return writeOrder(order, { to: 'scheduled', set: { next_contact_at: nextContactAt(earliest, window).toISOString() } }, now);
    }
    case 'scheduled': {
      if (order.next_contact_at && Date.parse(order.next_contact_at) > now.getTime()) return undefined;
      return startAttempt(order, now, await factsOf(order));
    }
    case 'in_call': {
      // Only the scheduler's check for a stuck call gets here: record the attempt as failed.
      if (Date.parse(order.updated_at) + 60_000 > now.getTime()) return undefined;
      return recordAttempt(order, { call_disposition: 'failed', started_at: order.updated_at, ended_at: now.toISOString() }, now, await factsOf(order));
    }
    default:
      return undefined;
  }
}

async function startAttempt(order: StoredOrder, now: Date, facts: Facts): Promise<StoredOrder> {
  const q = qualificationOf(order, facts);
  if (!q.qualified) return writeOrder(order, { to: 'rejected', reason: q.reason, set: { next_contact_at: null } }, now);
  const attempt = order.call_attempts + 1;
  const inCall = await writeOrder(order, { to: 'in_call', set: { call_attempts: attempt, next_contact_at: null, substitutions: q.substitutions } }, now);
  const report = await callPlatform(runtimeConfig().callPlatform).startAttempt(
    {
      tenant: order.tenant,
      external_order_id: order.external_order_id,
      attempt,
      phone: facts.customer!.phone!,
      locale: facts.customer!.locale,
      lines: effectiveLines(order.items, q.substitutions, facts.variants),
      currency: order.items[0]!.currency,
    },
    now,
  );
  return report === 'pending' ? inCall : recordAttempt(inCall, report, now, facts);
}

const resultView = (
  order: StoredOrder,
  disposition: AttemptReport['call_disposition'],
  outcome: BusinessOutcome,
  snapshot: OrderResult['final_order_snapshot'],
  rules: string[],
  at: string,
): OrderResult => ({
  external_order_id: order.external_order_id,
  processing_state: 'completed',
  call_disposition: disposition,
  business_outcome: outcome,
  final_order_snapshot: snapshot,
  applied_rules: rules,
  completed_at: at,
});

/**
 * Records a finished attempt: the attempt item and its event, and either the result (the
 * order completes, with `result_ready`) or the next attempt's contact time.
 */
export async function recordAttempt(order: StoredOrder, report: AttemptReport, now: Date, known?: Facts): Promise<StoredOrder> {
  const facts = known ?? (await factsFor(order));
  const attempt = order.call_attempts;
  const at = now.toISOString();
  const lines = effectiveLines(order.items, order.substitutions ?? [], facts.variants);
  const currency = order.items[0]!.currency;
  const common = { tenant: order.tenant, external_order_id: order.external_order_id, correlation_id: order.correlation_id, occurredAt: now };
  const attemptData = { attempt, call_disposition: report.call_disposition, started_at: report.started_at, ended_at: report.ended_at };

  let to: OrderState = 'completed';
  let result: OrderResult | undefined;
  let nextContact: string | null = null;
  if (report.call_disposition === 'answered') {
    const accepted =
      report.decision === 'modified' && facts.config.features_enabled.upsell ? acceptFirstSuggestion(lines, facts.variants, facts.rules) : undefined;
    result =
      report.decision === 'declined'
        ? resultView(order, 'answered', 'declined', snapshotOf(lines, currency, false, 'customer_declined'), [], at)
        : accepted
          ? resultView(order, 'answered', 'modified', snapshotOf(accepted.lines, currency, true, null), [accepted.rule], at)
          : resultView(order, 'answered', 'confirmed', snapshotOf(lines, currency, true, null), [], at);
  } else if (report.call_disposition === 'invalid_number') {
    result = resultView(order, 'invalid_number', 'invalid_number', snapshotOf(lines, currency, false, 'invalid_number'), [], at);
  } else if (attempt >= facts.config.max_call_attempts) {
    result = resultView(order, report.call_disposition, 'unreachable', snapshotOf(lines, currency, false, 'unreachable'), [], at);
  } else {
    to = 'scheduled';
    const window = callingWindow(facts.config, facts.customer?.locale);
    const earliest = new Date(now.getTime() + runtimeConfig().callRetryDelaySeconds * 1000);
    nextContact = (window ? nextContactAt(earliest, window) : earliest).toISOString();
  }

  return writeOrder(
    order,
    {
      to,
      reason: result ? result.business_outcome : report.call_disposition,
      set: { next_contact_at: nextContact },
      alsoPut: (pk, revision) => [
        { ...keys.orderAttempt(pk, attempt), entity: 'call_attempt', ...attemptData },
        eventItem(keys.orderEvent(pk, revision, '#attempt'), {
          ...common,
          event_type: 'commerce.call.attempt_completed.v1',
          causation_id: null,
          data: attemptData,
        }),
        ...(result
          ? [
              { ...keys.orderResult(pk), entity: 'result', tenant: order.tenant, ...result, ...(report.scenario ? { scenario: report.scenario } : {}) },
              eventItem(keys.orderEvent(pk, revision, '#result'), {
                ...common,
                event_type: 'commerce.order.result_ready.v1',
                causation_id: null,
                data: { result },
              }),
            ]
          : []),
      ],
    },
    now,
  );
}

/** Takes the order as far as it can go now. Safe to call any number of times, concurrently. */
export async function advanceOrder(tenant: string, id: string, now: () => Date = () => new Date()): Promise<void> {
  // The facts are read once per run: the steps of one run follow each other within moments.
  let facts: Promise<Facts> | undefined;
  const factsOf = (order: StoredOrder) => (facts ??= factsFor(order));
  let order = await readOrder(tenant, id, true);
  for (let steps = 0; steps < 20 && order && !isFinal(order.processing_state); steps++) {
    try {
      const written = await step(order, now(), factsOf);
      if (!written || written.processing_state === 'in_call') return;
      order = written;
    } catch (error) {
      if (!(error instanceof RevisionConflict)) throw error;
      order = await readOrder(tenant, id, true);
    }
  }
}
