/**
 * Idempotency of mutations (contract-decisions section 2) on Powertools' DynamoDB
 * persistence layer, in the single table.
 *
 * - The record key hashes (tenant, Idempotency-Key) only: one partner's key can never
 *   replay another partner's response.
 * - Method, path and body hash form the payload-validation hash: reusing a key for another
 *   request is a mismatch (409 payload_mismatch), never a replay.
 * - Each record gets its own partition key under the tenant prefix instead of Powertools'
 *   static partition key, which would put every record of the service on one partition.
 * - Every rendered response (2xx and 4xx) is stored; an unexpected error (5xx) propagates,
 *   so Powertools deletes the in-progress record and a retry executes again.
 */
import type { Context } from 'aws-lambda';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { IdempotencyAlreadyInProgressError, IdempotencyConfig, IdempotencyValidationError, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { dynamoClient, tableName } from '../storage/clients.ts';
import { keys, TABLE_TTL_ATTRIBUTE } from '../storage/keys.ts';
import { IdempotencyConflictError, ValidationError } from '../errors.ts';

export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 3600;
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

class TenantIdempotencyStore extends DynamoDBPersistenceLayer {
  private readonly tenant: string;
  constructor(tenant: string) {
    super({
      tableName: tableName(),
      awsSdkV3Client: dynamoClient(),
      keyAttr: 'pk',
      expiryAttr: TABLE_TTL_ATTRIBUTE,
    });
    this.tenant = tenant;
  }

  protected override getKey(idempotencyKey: string): Record<string, AttributeValue> {
    return marshall(keys.idempotency(this.tenant, idempotencyKey));
  }
}

interface IdempotentRequest {
  tenant: string;
  idempotency_key: string;
  method: string;
  path: string;
  body_sha256: string;
  execute: () => Promise<APIGatewayProxyResult>;
}

const config = new IdempotencyConfig({
  // Option names are case-sensitive; a misspelt one would silently hash the whole payload.
  eventKeyJmesPath: '[tenant, idempotency_key]',
  payloadValidationJmesPath: '[method, path, body_sha256]',
  expiresAfterSeconds: IDEMPOTENCY_RETENTION_SECONDS,
  throwOnNoIdempotencyKey: true,
  responseHook: (response) => {
    const stored = response as unknown as APIGatewayProxyResult;
    return { ...stored, headers: { ...stored.headers, [REPLAYED_HEADER]: 'true' } } as never;
  },
});

const perTenant = new Map<string, (request: IdempotentRequest, context: Context) => Promise<APIGatewayProxyResult>>();

function idempotentFor(tenant: string) {
  let fn = perTenant.get(tenant);
  if (!fn) {
    fn = makeIdempotent(async (request: IdempotentRequest, _context: Context) => request.execute(), {
      persistenceStore: new TenantIdempotencyStore(tenant),
      config,
      keyPrefix: 'commerce',
    });
    perTenant.set(tenant, fn);
  }
  return fn;
}

export function requireIdempotencyKey(headerValue: string | undefined): string {
  if (headerValue === undefined || !KEY_PATTERN.test(headerValue)) {
    throw new ValidationError([{ pointer: 'header:Idempotency-Key', message: 'is required on mutations: 1 to 255 printable ASCII characters' }]);
  }
  return headerValue;
}

/** Runs `execute` at most once per (tenant, key) within 24 h; see the module comment. */
export async function runIdempotent(
  request: Omit<IdempotentRequest, 'execute'>,
  context: Context,
  execute: () => Promise<APIGatewayProxyResult>,
): Promise<APIGatewayProxyResult> {
  try {
    return await idempotentFor(request.tenant)({ ...request, execute }, context);
  } catch (error) {
    if (error instanceof IdempotencyValidationError) throw new IdempotencyConflictError('payload_mismatch');
    if (error instanceof IdempotencyAlreadyInProgressError) throw new IdempotencyConflictError('in_progress');
    throw error;
  }
}
