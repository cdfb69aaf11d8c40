/**
 * Write-back to the partner's own store: one signed POST of a result to the tenant's write-back
 * endpoint, as webhooks are sent (the same address checks before every request, the connection
 * pinned to the checked address, no redirects, 5 s to connect and 15 s in all) and signed (both
 * header sets, so a Standard Webhooks library verifies it), with an `Idempotency-Key` that is the
 * same for every attempt of one result.
 *
 * The store's answer: 2xx is written; 409 ("already written with that key") is written; any
 * other 4xx is a final refusal; 5xx, a timeout or a network error is retried (the write-back
 * state's attempts, `writeback-state.ts`). A refused address is never called.
 */

import { checkWebhookUrl, type Resolver, resolvePublicAddress } from '../outbound/address-checks.ts';
import { postPinned } from '../outbound/http-post.ts';
import { signatureHeaders } from '../outbound/signature.ts';
import { StoreRejected, type StoreWriteBack, sandboxStore, type WriteBackRequest } from './writeback.ts';

/** What of a store's refusal goes into `commerce.writeback.failed.v1`: its status and the first bytes of its answer. */
const REASON_EXCERPT_CHARS = 200;

export interface HttpStoreSettings {
  allowPrivateUrls: boolean;
  /** Shrinks the 5 s connect and 15 s total timeouts (tests). */
  timeoutScale: number;
  resolve: Resolver;
}

/** A reason a partner can read and nothing else: printable, bounded, no line breaks. */
const sanitized = (text: string) =>
  text
    .replace(/[\p{Cc}\p{Cf}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, REASON_EXCERPT_CHARS);

/** The body of a write-back: what the partner's store needs to apply the result. */
export const writeBackBody = (request: WriteBackRequest): string =>
  JSON.stringify({
    external_order_id: request.external_order_id,
    business_outcome: request.business_outcome,
    final_order_snapshot: request.snapshot,
    correlation_id: request.correlation_id,
  });

/** POSTs one result to `url`, signed with `secrets`; resolves when the store has it, rejects as the store's answer says. */
export async function postWriteBack(
  settings: HttpStoreSettings,
  url: string,
  secrets: { current: string; previous?: string | undefined },
  request: WriteBackRequest,
  now = new Date(),
): Promise<void> {
  const checked = checkWebhookUrl(url, settings.allowPrivateUrls);
  if (!checked.ok) throw new StoreRejected(`endpoint_refused: ${checked.reason}`);
  const pinned = await resolvePublicAddress(checked.url, settings.resolve, settings.allowPrivateUrls);
  if (!pinned.ok) {
    // A name that does not resolve may resolve later; one that resolves to a private address is refused for good.
    if (pinned.unresolved) throw new Error(`endpoint_unreachable: ${pinned.reason}`);
    throw new StoreRejected(`endpoint_refused: ${pinned.reason}`);
  }
  const body = writeBackBody(request);
  const headers = { ...signatureHeaders(secrets, request.idempotency_key, body, now), 'Idempotency-Key': request.idempotency_key };
  const result = await postPinned(checked.url, pinned, headers, body, { connectMs: 5_000 * settings.timeoutScale, totalMs: 15_000 * settings.timeoutScale });
  const status = result.statusCode;
  if (status !== null && ((status >= 200 && status < 300) || status === 409)) return;
  if (status !== null && status >= 400 && status < 500) throw new StoreRejected(`store_refused: ${status} ${sanitized(result.responseExcerpt)}`.trim());
  throw new Error(status === null ? `store_unreachable: ${result.error}` : `store_failed: ${status}`);
}

/**
 * The store a tenant's results go to: its own endpoint where the platform team configured one
 * (sandbox tenants too, so a partner tests its receiver before going live), else the sandbox
 * store for a sandbox tenant. A live tenant with write-back on and no endpoint fails visibly.
 */
export function tenantStore(ports: {
  secretsOf: (tenant: string) => Promise<{ current: string; previous?: string } | undefined>;
  post: typeof postWriteBack;
  settings: HttpStoreSettings;
}): StoreWriteBack {
  return {
    async writeBack(request, target) {
      if (target.url) {
        const secrets = await ports.secretsOf(request.tenant);
        if (!secrets) throw new StoreRejected('no_secret: the write-back endpoint has no signing secret yet');
        return ports.post(ports.settings, target.url, secrets, request);
      }
      if (target.mode === 'sandbox') return sandboxStore.writeBack(request, target);
      throw new StoreRejected('no_endpoint: write-back is enabled but no endpoint is configured');
    },
  };
}
