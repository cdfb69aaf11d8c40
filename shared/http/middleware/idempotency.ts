/**
 * Idempotency of mutations (contract-decisions section 2) on Powertools' DynamoDB
 * persistence layer and its Middy middleware, in the single table.
 *
 * - The record key hashes (tenant, Idempotency-Key) only: one partner's key can never
 *   replay another partner's response.
 * - Method, path and body hash form the payload-validation hash: reusing a key for another
 *   request is a mismatch (409 payload_mismatch), never a replay.
 * - Each record gets its own partition key under the tenant prefix instead of Powertools'
 *   static partition key, which would put every record of the service on one partition.
 * - Every rendered response (2xx and 4xx) is stored; an unexpected error (5xx) propagates,
 *   so the in-progress record is deleted and a retry executes again. A response that cannot be
 *   stored leaves the in-progress record to expire: the work ran, and no duplicate may run
 *   beside it.
 * - A replay is handed to the handler (`http.replay`) rather than returned early, so the
 *   rest of the chain (request id, the completion log line) still runs for it.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyItemAlreadyExistsError,
  IdempotencyPersistenceLayerError,
  IdempotencyRecordStatus,
  IdempotencyValidationError,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import { type BasePersistenceLayer, IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import type { IdempotencyRecordOptions } from '@aws-lambda-powertools/idempotency/types';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { HttpMethod } from '../../api/routes.ts';
import { IdempotencyConflictError, ValidationError } from '../../errors.ts';
import { logger } from '../../logging/logger.ts';
import { writeConditionally } from '../../storage/conditional.ts';
import { type ItemKey, keys, TABLE_TTL_ATTRIBUTE } from '../../storage/keys.ts';
import type { HttpMiddleware, HttpRequest } from './types.ts';

export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 3600;
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** Where Powertools keeps a record's fields; named here because the claim below writes them itself. */
const RECORD_ATTRIBUTES = {
  keyAttr: 'pk',
  expiryAttr: TABLE_TTL_ATTRIBUTE,
  inProgressExpiryAttr: 'in_progress_expiration',
  statusAttr: 'status',
  dataAttr: 'data',
  validationKeyAttr: 'validation',
} as const;

/**
 * The claim, Powertools' conditional put (no record, or one expired, or a claim whose in-progress
 * expiry passed) made through `writeConditionally`: when the connection drops after DynamoDB
 * stored the claim, the SDK's retry meets it and must not answer "in progress" to the very
 * request that holds it. Only the write's own token tells the two apart; the record's fields
 * cannot, since concurrent requests with one deadline write identical claims.
 */
async function claim(tableName: string, key: ItemKey, record: IdempotencyRecord): Promise<void> {
  const a = RECORD_ATTRIBUTES;
  const now = Date.now();
  const { written, item } = await writeConditionally({
    put: {
      TableName: tableName,
      Item: {
        ...key,
        [a.expiryAttr]: record.expiryTimestamp,
        [a.statusAttr]: record.getStatus(),
        [a.inProgressExpiryAttr]: record.inProgressExpiryTimestamp,
        [a.validationKeyAttr]: record.payloadHash,
      },
      ConditionExpression:
        'attribute_not_exists(#id) OR #expiry < :now OR (#status = :inprogress AND attribute_exists(#in_progress_expiry) AND #in_progress_expiry < :now_in_millis)',
      ExpressionAttributeNames: { '#id': a.keyAttr, '#expiry': a.expiryAttr, '#in_progress_expiry': a.inProgressExpiryAttr, '#status': a.statusAttr },
      ExpressionAttributeValues: { ':now': now / 1000, ':now_in_millis': now, ':inprogress': IdempotencyRecordStatus.INPROGRESS },
    },
  });
  if (written) return;
  throw new IdempotencyItemAlreadyExistsError(
    `Failed to put record for already existing idempotency key: ${record.idempotencyKey}`,
    item &&
      new IdempotencyRecord({
        idempotencyKey: record.idempotencyKey,
        status: item[a.statusAttr],
        expiryTimestamp: item[a.expiryAttr],
        inProgressExpiryTimestamp: item[a.inProgressExpiryAttr],
        responseData: item[a.dataAttr],
        payloadHash: item[a.validationKeyAttr],
      } as IdempotencyRecordOptions),
  );
}

/** The table's persistence layer for one tenant's records. */
export function tableIdempotencyStore(tableName: string, client: DynamoDBClient) {
  return (tenant: string): BasePersistenceLayer =>
    new (class extends DynamoDBPersistenceLayer {
      protected override getKey(idempotencyKey: string): Record<string, AttributeValue> {
        return marshall(keys.idempotency(tenant, idempotencyKey));
      }

      protected override _putRecord(record: IdempotencyRecord): Promise<void> {
        return claim(tableName, keys.idempotency(tenant, record.idempotencyKey), record);
      }
    })({ tableName, awsSdkV3Client: client, ...RECORD_ATTRIBUTES });
}

/**
 * What Powertools selects from the payload below: the record's key, and what a reuse of the key
 * must match. Multi-select lists of field names only: the bundles evaluate no other JMESPath
 * (infra/powertools-jmespath.ts).
 */
export const IDEMPOTENCY_JMESPATH = { key: '[tenant, idempotency_key]', payload: '[method, path, body_sha256]' } as const;

/**
 * One configuration per request: Powertools keeps the Lambda context it computes the
 * in-progress expiry from on the configuration, and requests handled side by side (the local
 * runtime's single process) must not see each other's.
 */
const requestConfig = () =>
  new IdempotencyConfig({
    // Option names are case-sensitive; a misspelt one would silently hash the whole payload.
    eventKeyJmesPath: IDEMPOTENCY_JMESPATH.key,
    payloadValidationJmesPath: IDEMPOTENCY_JMESPATH.payload,
    expiresAfterSeconds: IDEMPOTENCY_RETENTION_SECONDS,
    throwOnNoIdempotencyKey: true,
    // The record's key and payload hash: SHA-256, not Powertools' default MD5, whose collisions can be made.
    hashFunction: 'sha256',
    responseHook: (response) => {
      const stored = replayed(response as unknown as KeptAnswer);
      return { ...stored, headers: { ...stored.headers, [REPLAYED_HEADER]: 'true' } } as never;
    },
  });

/**
 * The context Powertools takes the in-progress expiry from. A claim must always expire: with no
 * time left Powertools would write none, and a request that then died (a crash, a kill) would
 * hold its key "in progress" until the record's 24 h retention.
 */
const MIN_IN_PROGRESS_MS = 1_000;
const withInProgressExpiry = <C extends { getRemainingTimeInMillis?: () => number }>(context: C): C => ({
  ...context,
  getRemainingTimeInMillis: () => Math.max(MIN_IN_PROGRESS_MS, context.getRemainingTimeInMillis?.() ?? 0),
});

/**
 * DynamoDB items hold 400 KB: an answer larger than this is kept gzip-compressed (a batch's
 * results, the largest answers there are, compress about tenfold), and a replay answers the
 * original body. One that does not fit even so (no request the contract allows comes near) is
 * not kept: a retry runs again, which the versioned writes make harmless.
 */
export const MAX_KEPT_ANSWER_BYTES = 300 * 1024;
type KeptAnswer = APIGatewayProxyResult & { kept_as?: 'gzip-base64' };

function keptAnswer(answer: APIGatewayProxyResult): KeptAnswer | undefined {
  if (Buffer.byteLength(answer.body) <= MAX_KEPT_ANSWER_BYTES) return answer;
  const packed = gzipSync(answer.body).toString('base64');
  return packed.length <= MAX_KEPT_ANSWER_BYTES ? { ...answer, body: packed, kept_as: 'gzip-base64' } : undefined;
}

/** The answer as it was first given. */
function replayed({ kept_as, ...answer }: KeptAnswer): APIGatewayProxyResult {
  return kept_as === 'gzip-base64' ? { ...answer, body: gunzipSync(Buffer.from(answer.body, 'base64')).toString('utf8') } : answer;
}

export function requireIdempotencyKey(headerValue: string | undefined): string {
  if (headerValue === undefined || !KEY_PATTERN.test(headerValue)) {
    throw new ValidationError([{ pointer: 'header:Idempotency-Key', message: 'is required on mutations: 1 to 255 printable ASCII characters' }]);
  }
  return headerValue;
}

/**
 * Powertools wraps what DynamoDB answered in its own error; the cause is what the request
 * answers (throttling is 429 with Retry-After, like every other throttled call), not a 500.
 */
const storeFailure = (error: unknown): Error =>
  error instanceof IdempotencyPersistenceLayerError && error.cause instanceof Error ? error.cause : (error as Error);

type Delegate = ReturnType<typeof makeHandlerIdempotent>;
type DelegateRequest = Parameters<NonNullable<Delegate['before']>>[0];

/** Runs the handler at most once per (tenant, Idempotency-Key) within 24 h; GETs pass through. */
export function idempotency(method: HttpMethod, storeFor: (tenant: string) => BasePersistenceLayer): HttpMiddleware {
  const stores = new Map<string, BasePersistenceLayer>();
  const delegateFor = (tenant: string) => {
    if (!stores.has(tenant)) stores.set(tenant, storeFor(tenant));
    return makeHandlerIdempotent({ persistenceStore: stores.get(tenant)!, config: requestConfig(), keyPrefix: 'commerce' });
  };
  const claims = new WeakMap<HttpRequest, { delegate: Delegate; request: DelegateRequest }>();
  return {
    before: async (request) => {
      if (method === 'GET') return;
      const { http } = request.context;
      const tenant = http.principal!.tenant;
      const payload = {
        tenant,
        idempotency_key: requireIdempotencyKey(http.headers['idempotency-key']),
        method,
        path: http.path,
        body_sha256: http.headers['x-svc-content-sha256'],
      };
      const inner = { event: payload, context: withInProgressExpiry(request.context), internal: {}, response: undefined } as unknown as DelegateRequest;
      const delegate = delegateFor(tenant);
      let stored: unknown;
      try {
        stored = await delegate.before!(inner);
      } catch (error) {
        if (error instanceof IdempotencyValidationError) throw new IdempotencyConflictError('payload_mismatch');
        if (error instanceof IdempotencyAlreadyInProgressError) throw new IdempotencyConflictError('in_progress');
        throw storeFailure(error);
      }
      if (stored !== undefined) http.replay = stored as APIGatewayProxyResult;
      else claims.set(request, { delegate, request: inner });
    },
    after: async (request) => {
      const claim = claims.get(request);
      if (!claim) return;
      // A secret shown once is never kept: the record holds the answer without it.
      const kept = keptAnswer(request.context.http.replayAnswer ?? request.response!);
      try {
        if (!kept) throw new Error('answer too large to keep, even compressed');
        await claim.delegate.after!({ ...claim.request, response: kept } as DelegateRequest);
      } catch (error) {
        // The work is done and its answer goes out; never a 500 after the work committed. The
        // claim is kept, not released: a duplicate gets 409 in_progress until the claim expires
        // with this request's deadline, so it can never run alongside this one; after that a
        // retry runs again, which the versioned writes make harmless.
        logger.warn('idempotency record not saved; a retry runs again once the claim expires', { error: (error as Error).name });
      }
    },
    onError: async (request) => {
      const claim = claims.get(request);
      if (!claim) return;
      try {
        await claim.delegate.onError!(claim.request);
      } catch (error) {
        // The request's own error is what it answers; a claim not released expires with its deadline.
        logger.warn('idempotency claim not released; it expires with the request deadline', { error: storeFailure(error).name });
      }
    },
  };
}
