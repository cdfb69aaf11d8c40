/**
 * Saving a subscription: its URL must pass the address checks every delivery makes again, then
 * the subscription is created or replaced; the secret is shown only when it was created.
 */
import { ValidationError } from '../errors.ts';
import { checkWebhookUrl, type Resolver, resolvePublicAddress } from '../outbound/address-checks.ts';
import { deliveryHealth } from './delivery-list.ts';
import { putSubscription, subscriptionView } from './subscription-store.ts';

type SubscriptionInput = Parameters<typeof putSubscription>[1];

/**
 * Creates or replaces the tenant's subscription once its URL is https on a public address (the
 * same check every delivery makes again); a refused URL is a 422 on `/url` with the reason.
 * Answers the view, and the secret only when the subscription was created.
 */
export async function saveCheckedSubscription(
  tenant: string,
  input: SubscriptionInput,
  now: Date,
  options: { allowPrivateUrls: boolean; resolve: Resolver },
): Promise<{ created: boolean; view: ReturnType<typeof subscriptionView>; secret?: string }> {
  const checked = checkWebhookUrl(input.url, options.allowPrivateUrls);
  const resolved = checked.ok ? await resolvePublicAddress(checked.url, options.resolve, options.allowPrivateUrls) : checked;
  if (!resolved.ok) {
    // The URL's own refusals say what it must be ("it must use https"); a resolution's names its host.
    const subject = 'unresolved' in resolved ? '' : 'it ';
    throw new ValidationError([{ pointer: '/url', message: resolved.reason }], `The webhook URL is refused: ${subject}${resolved.reason}.`);
  }
  const { created, subscription } = await putSubscription(tenant, input, now);
  const view = subscriptionView(subscription, await deliveryHealth(tenant, now), now);
  return created ? { created, view, secret: subscription.secret } : { created, view };
}
