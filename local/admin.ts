/**
 * Admin CLI for tenants, keys and the webhook dead-letter queue (contract-decisions section 9).
 * Targets the running `npm start` (endpoints from runtime.json in its data directory) or, with
 * `--stack NAME` and AWS credentials, a deployed stack (from its CloudFormation outputs).
 *
 *   npm run admin -- keys create --tenant T --scopes a,b [--json]
 *   npm run admin -- keys revoke --key-id K
 *   npm run admin -- tenants put --tenant T --config FILE
 *   npm run admin -- dlq list
 *   npm run admin -- dlq redrive
 *   npm run admin -- stream-work list [--json]
 *   npm run admin -- stream-work replay
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { StartMessageMoveTaskCommand } from '@aws-sdk/client-sqs';
import { localDataDir } from './data-dir.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    tenant: { type: 'string' },
    scopes: { type: 'string' },
    'key-id': { type: 'string' },
    config: { type: 'string' },
    json: { type: 'boolean', default: false },
    stack: { type: 'string' },
    region: { type: 'string' },
  },
});

function fail(message: string): never {
  console.error(`admin: ${message}`);
  process.exit(2);
}

interface Target {
  local: boolean;
  webhookQueueArn?: string;
  webhookDlqArn?: string;
}

/** Points the shared modules' configuration at the chosen stack before they are loaded. */
async function selectTarget(): Promise<Target> {
  if (values.stack) {
    const cfn = new CloudFormationClient(values.region ? { region: values.region } : {});
    const { Stacks } = await cfn.send(new DescribeStacksCommand({ StackName: values.stack }));
    const outputs = Object.fromEntries((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
    Object.assign(process.env, {
      TABLE_NAME: outputs.TableName,
      WEBHOOK_QUEUE_URL: outputs.WebhookQueueUrl,
      WEBHOOK_DLQ_URL: outputs.WebhookDlqUrl,
      // Keys are created with the operator's credentials, which must allow kms:GenerateMac on this key.
      KEY_SECRETS_KMS_KEY_ID: outputs.ApiKeySecretsKeyArn,
      ...(values.region ? { AWS_REGION: values.region } : {}),
    });
    return { local: false, webhookQueueArn: outputs.WebhookQueueArn, webhookDlqArn: outputs.WebhookDlqArn };
  }
  const runtimeFile = join(localDataDir(), 'runtime.json');
  if (!existsSync(runtimeFile)) fail(`no running local stack (${runtimeFile} is missing): run \`npm start\` first, or pass --stack NAME`);
  Object.assign(process.env, JSON.parse(readFileSync(runtimeFile, 'utf8')).env);
  return { local: true };
}

const target = await selectTarget();
const { createApiKey, putTenantConfig, revokeApiKey } = await import('#shared/tenants/store.ts');
const { isScope } = await import('#shared/api/scopes.ts');
const { TENANT_ID_PATTERN } = await import('#shared/tenants/config.ts');
const { queueClient } = await import('#shared/storage/clients.ts');
const { moveDeadLetters, peekDeadLetters } = await import('#shared/queue/dead-letters.ts');

const [area, action] = positionals;
switch (`${area} ${action}`) {
  case 'keys create': {
    const tenant = values.tenant ?? fail('--tenant is required');
    if (!TENANT_ID_PATTERN.test(tenant)) fail(`--tenant must match ${TENANT_ID_PATTERN}`);
    const scopes = (values.scopes ?? fail('--scopes is required (comma-separated)'))
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length || !scopes.length) fail(`unknown scopes: ${unknown.join(', ') || '(none given)'}`);
    const key = await createApiKey(tenant, scopes.filter(isScope));
    if (values.json) console.log(JSON.stringify(key));
    else console.log(`Created key ${key.key_id} for tenant ${tenant}.\nSecret (shown once, store it now): ${key.secret}`);
    break;
  }
  case 'keys revoke': {
    const keyId = values['key-id'] ?? fail('--key-id is required');
    if (!(await revokeApiKey(keyId))) fail(`no key ${keyId}`);
    console.log(`Revoked ${keyId}; function instances stop accepting it within their cache time (at most 60 s).`);
    break;
  }
  case 'tenants put': {
    const tenant = values.tenant ?? fail('--tenant is required');
    if (!TENANT_ID_PATTERN.test(tenant)) fail(`--tenant must match ${TENANT_ID_PATTERN}`);
    const file = values.config ?? fail('--config FILE is required');
    try {
      const config = await putTenantConfig(tenant, JSON.parse(readFileSync(file, 'utf8')));
      console.log(JSON.stringify({ tenant, config }, null, 2));
    } catch (error) {
      fail(`invalid configuration: ${error instanceof Error ? error.message : String(error)}`);
    }
    break;
  }
  case 'dlq list': {
    const { approximate, messages } = await peekDeadLetters();
    console.log(`${approximate} message(s) in the webhook dead-letter queue`);
    for (const m of messages) console.log(`${m.message_id}  delivery=${m.delivery_id}  tenant=${m.tenant}  sent=${m.sent_at}`);
    break;
  }
  case 'dlq redrive': {
    if (!target.local) {
      const { TaskHandle } = await queueClient().send(
        new StartMessageMoveTaskCommand({ SourceArn: target.webhookDlqArn, DestinationArn: target.webhookQueueArn }),
      );
      console.log(`Started the move task ${TaskHandle}: every message goes back to the webhook queue.`);
      break;
    }
    console.log(`Moved ${await moveDeadLetters()} message(s) back to the webhook queue.`);
    break;
  }
  case 'stream-work list': {
    const { pendingStreamWork } = await import('#shared/stream/stream-work.ts');
    const pending = await pendingStreamWork();
    if (values.json) console.log(JSON.stringify(pending));
    else {
      console.log(`${pending.length} item(s) whose stream work is not done yet (overdue ones are replayed by the reconciler every minute)`);
      for (const p of pending) console.log(`${p.entity} ${p.type}  tenant=${p.tenant}  due=${p.due_at}${p.overdue ? '  OVERDUE' : ''}`);
    }
    break;
  }
  case 'stream-work replay': {
    // What a skipped stream batch left undone (also listed in the stream's on-failure queue on AWS), replayed now instead of when due.
    const { replayOverdueStreamWork } = await import('#shared/stream/stream-work.ts');
    const { reactions } = await import('#functions/workers/stream-processor.ts');
    const { replayed, failed } = await replayOverdueStreamWork(new Date(), reactions, new Date('9999-12-31T00:00:00Z'));
    console.log(`Replayed ${replayed} item(s) through the stream processor's reactions; ${failed} failed and come due again.`);
    if (failed) process.exitCode = 1;
    break;
  }
  default:
    fail(
      'usage: admin (keys create --tenant T --scopes a,b [--json] | keys revoke --key-id K | tenants put --tenant T --config FILE | dlq list | dlq redrive | stream-work list [--json] | stream-work replay) [--stack NAME --region R]',
    );
}
