export {
  type Answer,
  type ClientOptions,
  type CommerceClient,
  type CustomerInput,
  createCommerceClient,
  type ListQuery,
  type MutationOptions,
  type Query,
  type RequestBody,
} from './client.ts';
export { CommerceApiError, type ErrorCode, type Problem } from './errors.ts';
export type { components, operations, paths, webhooks } from './schema.ts';
export { type Credentials, canonicalQuery, type QueryParameters, type SignedHeaders, signRequest, stringToSign } from './signing.ts';
export { type RetryOptions, retryAfterMs, type TransportOptions } from './transport.ts';
export {
  constructEvent,
  type HeaderSource,
  isTruncated,
  type VerifyOptions,
  verifyWebhook,
  WEBHOOK_HEADERS,
  type WebhookEvent,
  type WebhookEventType,
  WebhookSignatureError,
  webhookSignature,
} from './webhooks.ts';
