/**
 * Every function runs under the policy the synthesized template gives it: these run the
 * functions' real code against DynamoDB Local, first under the deployed policy (it works),
 * then with one action the code used taken out of a copy of that policy (AWS would refuse it,
 * and so does the local runtime, naming the function and the action).
 */
import { randomUUID } from 'node:crypto';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { DATA_STORE_IDS } from '#infra/parts/data-store.ts';
import { type Deployment, type LocalStandIns, localDeployment, synthesizedTemplate } from '#local/deployment.ts';
import type { PolicyStatement } from '#local/iam.ts';
import { invoke } from '#local/invocation.ts';
import { enforcePermissions, type PermissionCheck, permissionCheck } from '#local/permissions.ts';
import { decorateClients, dynamoClient, queueClient, tableClient, tableName } from '#shared/storage/clients.ts';

let deployment: Deployment;
let standIns: LocalStandIns;
// The check every client of this test process carries; each case swaps in the policies it runs under.
const check = {} as PermissionCheck;
decorateClients((service, client) => enforcePermissions(service, client as never, check));

beforeAll(async () => {
  // Resource names are read as the operator, before any function runs.
  const { Table } = await dynamoClient().send(new DescribeTableCommand({ TableName: tableName() }));
  const arnOf = async (url: string) =>
    (await queueClient().send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  const queue = async (url: string) => ({ Ref: url, Arn: await arnOf(url) });
  standIns = {
    tableArn: Table!.TableArn!,
    streamArn: Table!.LatestStreamArn!,
    queues: {
      [DATA_STORE_IDS.webhookQueue]: await queue(process.env.WEBHOOK_QUEUE_URL!),
      [DATA_STORE_IDS.webhookDlq]: await queue(process.env.WEBHOOK_DLQ_URL!),
      [DATA_STORE_IDS.streamFailures]: await queue(process.env.STREAM_FAILURE_QUEUE_URL!),
    },
  };
  deployment = localDeployment(await synthesizedTemplate(), standIns);
});

const without = (action: string) => (_name: string, statements: PolicyStatement[]) =>
  statements.map((s) => (s.Effect === 'Allow' ? { ...s, Action: [s.Action].flat().filter((a) => a !== action) } : s));

/** Runs `work` as one invocation of `functionName` under its deployed policy, edited or not; returns the actions it used. */
async function runAs<R>(functionName: string, work: () => Promise<R>, edit?: (name: string, s: PolicyStatement[]) => PolicyStatement[]) {
  Object.assign(check, permissionCheck(deployment, standIns, edit));
  const result = await invoke(functionName, 60, work);
  return { result, used: [...check.used].filter((u) => u.startsWith(`${functionName} `)).map((u) => u.split(' ')[1]!) };
}

/**
 * A dead-lettered delivery, made as the operator. Parked, it has no queue message and no due
 * entry, so the shared stack's own sender never claims it before the test does.
 */
async function parkedDelivery() {
  const { enqueueDelivery } = await import('#shared/webhooks/delivery-store.ts');
  const tenant = `t-${randomUUID().slice(0, 12)}`;
  const id = `dlv_${randomUUID()}`;
  const event = {
    event_id: `evt_${randomUUID()}`,
    event_type: 'commerce.order.status_changed.v1',
    external_order_id: 'o-1',
    event_occurred_at: new Date().toISOString(),
    correlation_id: 'c',
  };
  await enqueueDelivery(tenant, id, event, '{}', null, new Date(), { parked: true });
  return { tenant, id };
}

/** What the sender does with a redriven delivery its endpoint accepted: claim it, then record the attempt. */
const deliverAndRecord =
  ({ tenant, id }: { tenant: string; id: string }) =>
  async () => {
    const { claimDelivery, recordDeliveryAttempt } = await import('#shared/webhooks/delivery-store.ts');
    const claim = await claimDelivery(tenant, id, new Date(), 60, true);
    if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
    const outcome = { at: new Date(), statusCode: 200, error: null, latencyMs: 5, requestExcerpt: '', responseExcerpt: '' };
    return recordDeliveryAttempt(claim.delivery, outcome, claim.lease);
  };

const refusal = (fn: string, action: string) => new RegExp(`assumed-role/${fn}-role/${fn} is not authorized to perform: ${action} on resource: arn:aws:`);

describe('functions run under their synthesized policies', () => {
  it("the webhook sender records an attempt with PutItem: without it in the sender's policy the record is refused, naming both", async () => {
    const deployed = await runAs('webhook-sender', deliverAndRecord(await parkedDelivery()));
    expect(deployed.result.status).toBe('delivered');
    expect(deployed.used).toContain('dynamodb:PutItem');

    const withoutPut = runAs('webhook-sender', deliverAndRecord(await parkedDelivery()), without('dynamodb:PutItem'));
    await expect(withoutPut).rejects.toThrow(refusal('webhook-sender', 'dynamodb:PutItem'));
    await expect(withoutPut).rejects.toMatchObject({ name: 'AccessDeniedException' });
    expect(check.refused).toEqual([expect.stringMatching(/^webhook-sender dynamodb:PutItem arn:aws:dynamodb:.*table\/commerce-interface$/)]);
  });

  it('an API function (PUT /customers) needs every action it used: each one taken out refuses the upsert', async () => {
    const { upsertCustomer } = await import('#shared/customers/customer-store.ts');
    const { CustomerInputSchema } = await import('#shared/customers/customer-schemas.ts');
    const input = CustomerInputSchema.parse({
      phone: '+4915112345670',
      locale: 'de-DE',
      consent: { status: 'granted', proof: { source: 'checkout', reference: 'consent-7781', collected_at: '2026-11-01T09:30:00Z' } },
      source_version: '17',
    });
    const upsert = () => upsertCustomer(`t-${randomUUID().slice(0, 12)}`, 'c-1', input, new Date());
    const { used } = await runAs('putCustomer', upsert);
    expect(used.length).toBeGreaterThan(0);
    for (const action of used) {
      await expect(runAs('putCustomer', upsert, without(action))).rejects.toThrow(refusal('putCustomer', action));
    }
  });

  it('no API function may write an API key item: the KEY# deny is explicit, whatever else it is allowed', async () => {
    const plantKey = () => tableClient().send(new PutCommand({ TableName: tableName(), Item: { pk: `KEY#${randomUUID()}`, sk: 'KEY', scopes: ['*'] } }));
    await expect(runAs('putCustomer', plantKey)).rejects.toThrow(/because an explicit deny in an identity-based policy applies/);
    await expect(runAs('webhook-sender', plantKey)).rejects.toThrow(refusal('webhook-sender', 'dynamodb:PutItem'));
    // A transaction is authorized item by item, so hiding the key among allowed writes does not help.
    const plantKeyInTransaction = () =>
      tableClient().send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName(), Item: { pk: `T#x#${randomUUID()}`, sk: 'X' } } },
            { Put: { TableName: tableName(), Item: { pk: `KEY#${randomUUID()}`, sk: 'KEY', scopes: ['*'] } } },
          ],
        }),
      );
    await expect(runAs('archiveProduct', plantKeyInTransaction)).rejects.toThrow(/because an explicit deny in an identity-based policy applies/);
  });

  it('a worker (the call scheduler) sweeps the due index with Query: without it the sweep is refused', async () => {
    const { sweepDueOrders } = await import('#shared/orders/due-sweep.ts');
    const sweep = () => sweepDueOrders(new Date(), async () => undefined);
    const { used } = await runAs('call-scheduler', sweep);
    expect(used).toContain('dynamodb:Query');
    await expect(runAs('call-scheduler', sweep, without('dynamodb:Query'))).rejects.toThrow(refusal('call-scheduler', 'dynamodb:Query'));
  });

  it('a function that runs past its timeout is stopped: no AWS call of the abandoned work goes out', async () => {
    Object.assign(check, permissionCheck(deployment, standIns));
    let lateCall: Promise<unknown> | undefined;
    const slow = invoke('getCustomer', 0.2, async () => {
      await new Promise((r) => setTimeout(r, 400));
      lateCall = tableClient().send(new PutCommand({ TableName: tableName(), Item: { pk: `T#late#${randomUUID()}`, sk: 'X' } }));
      return lateCall;
    });
    await expect(slow).rejects.toThrow(/getCustomer: Task timed out after 0.20 seconds/);
    await new Promise((r) => setTimeout(r, 400));
    await expect(lateCall).rejects.toMatchObject({ name: 'InvocationEndedError' });
  });
});
