/**
 * Reaction jobs: work over a tenant's orders (requalify those using an archived product,
 * scrub those of an erased customer) done one bounded page per invocation, so any tenant
 * size completes within the function's timeout. The job item is written in the same
 * transaction as its cause; each page moves its position on, and that change's stream record
 * runs the next page. While running, the job carries a stream-work due entry, so a page whose
 * record is skipped is run by the reconciler instead.
 */
import { tableName } from '../storage/clients.ts';
import { landed } from '../storage/conditional.ts';
import { keys } from '../storage/keys.ts';
import { streamDueAttributes } from '../stream/stream-work.ts';

export type JobKind = 'requalify-product-orders' | 'scrub-customer-orders';

/** Where a job's walk is: the index of the partition it reads (`shard`), and the key to continue after. */
export interface ListPosition {
  shard: number;
  after?: Record<string, unknown>;
}

/**
 * Which orders a reaction job walks: the active orders using any of an archived product's
 * variants (the active states' partitions only: a tenant's finished orders are never read), or
 * every order of an erased customer (its links). Either way the walk reads the orders concerned,
 * not the tenant's order book.
 */
export type OrderWalk = { kind: 'active-using'; variants: readonly string[] } | { kind: 'of-customer'; customer: string };

export interface StoredJob {
  pk: string;
  sk: string;
  entity: 'job';
  kind: JobKind;
  tenant: string;
  /** The archived product's or the erased customer's id. */
  subject: string;
  position: ListPosition | null;
  pages: number;
  orders: number;
  /** The longest page so far: it must stay well inside the stream processor's timeout. */
  longest_page_ms?: number;
  status: 'running' | 'done';
  created_at: string;
  updated_at: string;
}

/** A new job as an item to write with its cause (one per cause: its id names the cause and its time). */
export function jobItem(kind: JobKind, tenant: string, subject: string, now: Date): StoredJob & Record<string, unknown> {
  const at = now.toISOString();
  const key = keys.job(tenant, kind, subject, at);
  return {
    ...key,
    entity: 'job',
    kind,
    tenant,
    subject,
    position: { shard: 0 },
    pages: 0,
    orders: 0,
    status: 'running',
    created_at: at,
    updated_at: at,
    ...streamDueAttributes(key.pk, now),
  };
}

const SET_PAGE_DONE = 'SET #position = :next, pages = pages + :one, orders = orders + :n, longest_page_ms = :longest, updated_at = :at';

/**
 * Records a page done: the next position (null: the walk is over and the job done). Only the
 * first writer of a page moves the job on; a duplicate stream record's page changes nothing.
 */
export async function advanceJob(job: StoredJob, next: ListPosition | null, page: { orders: number; ms: number }, now: Date): Promise<void> {
  const running = next !== null;
  const due = streamDueAttributes(job.pk, now);
  await landed({
    update: {
      TableName: tableName(),
      Key: { pk: job.pk, sk: job.sk },
      UpdateExpression: running ? `${SET_PAGE_DONE}, gsi2pk = :duepk, gsi2sk = :duesk` : `${SET_PAGE_DONE}, #status = :done REMOVE gsi2pk, gsi2sk`,
      ConditionExpression: 'pages = :seen',
      ExpressionAttributeNames: { '#position': 'position', ...(running ? {} : { '#status': 'status' }) },
      ExpressionAttributeValues: {
        ':next': next,
        ':one': 1,
        ':n': page.orders,
        ':longest': Math.max(job.longest_page_ms ?? 0, Math.round(page.ms)),
        ':at': now.toISOString(),
        ':seen': job.pages,
        ...(running ? { ':duepk': due.gsi2pk, ':duesk': due.gsi2sk } : { ':done': 'done' }),
      },
    },
  });
}
