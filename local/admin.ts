/**
 * Admin CLI for tenants, keys and the webhook dead-letter queue (contract-decisions section 9).
 * Targets the running `npm start` (endpoints from runtime.json in its data directory) or, with
 * `--stack NAME` and AWS credentials, a deployed stack (from its CloudFormation outputs).
 *
 *   npm run admin -- keys create --tenant T --scopes a,b [--json]
 *   npm run admin -- keys revoke --key-id K
 *   npm run admin -- keys reissue-legacy [--json]
 *   npm run admin -- tenants get --tenant T
 *   npm run admin -- tenants put --tenant T --config FILE [--replace]
 *   npm run admin -- writeback rotate-secret --tenant T [--json]
 *   npm run admin -- dlq list
 *   npm run admin -- dlq redrive [--tenant T] [--event-type E] [--since TIME] [--rate N]
 *   npm run admin -- deliveries list [--tenant T] [--status S] [--event-type E] [--since TIME] [--limit N] [--json]
 *   npm run admin -- deliveries show DELIVERY_ID [--tenant T] [--json]
 *   npm run admin -- recover --tenant T --since TIME [--json]
 *   npm run admin -- stream-failures list [--json] | purge [--force]
 *   npm run admin -- stream-work list [--json]
 *   npm run admin -- stream-work replay
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { ListMessageMoveTasksCommand, StartMessageMoveTaskCommand } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { parseCallerIds } from '#shared/config/runtime.ts';
import { checkWebhookUrl } from '#shared/outbound/address-checks.ts';
import { type TenantConfig, TenantConfigSchema } from '#shared/tenants/config.ts';
import type { DeploymentCalls } from '#shared/tenants/config-writer.ts';
import { DELIVERY_STATUSES, type DeliveryStatus } from '#shared/webhooks/webhook-schemas.ts';
import { type CommandHelp, failUsage, knownCommand, parseCli, stackProblem } from './cli.ts';
import { localDataDir } from './data-dir.ts';
import { localDeploymentCalls } from './deployment.ts';

/** Every command with an example: `--help` prints them (or the one asked about), the default case their usages. */
const COMMANDS: readonly CommandHelp[] = [
  { command: 'keys create', usage: 'keys create --tenant T --scopes a,b [--json]', example: 'keys create --tenant acme --scopes orders:read,orders:write' },
  { command: 'keys revoke', usage: 'keys revoke --key-id K', example: 'keys revoke --key-id key_0123456789abcdef' },
  { command: 'keys reissue-legacy', usage: 'keys reissue-legacy [--json]', example: 'keys reissue-legacy --json' },
  { command: 'tenants get', usage: 'tenants get --tenant T   (the stored configuration, every field)', example: 'tenants get --tenant acme' },
  {
    command: 'tenants put',
    usage:
      'tenants put --tenant T --config FILE [--replace]   (changes only the fields FILE names and prints what changed; --replace: FILE is the whole configuration)',
    example: 'tenants put --tenant acme --config acme.json',
  },
  {
    command: 'writeback rotate-secret',
    usage: "writeback rotate-secret --tenant T [--json]   (the write-back endpoint's signing secret, shown once; the previous one stays valid 24 h)",
    example: 'writeback rotate-secret --tenant acme',
  },
  { command: 'dlq list', usage: 'dlq list', example: 'dlq list' },
  {
    command: 'dlq redrive',
    usage: 'dlq redrive [--tenant T] [--event-type E] [--since TIME] [--rate N]   (--since: the delivery was created at or after TIME, RFC 3339)',
    example: 'dlq redrive --tenant acme --since 2026-11-23T10:00:00Z --rate 10',
  },
  {
    command: 'deliveries list',
    usage: 'deliveries list [--tenant T] [--status S] [--event-type E] [--since TIME] [--limit N] [--json]   (--since: created at or after TIME)',
    example: 'deliveries list --tenant acme --status dead_lettered',
  },
  {
    command: 'deliveries show',
    usage: 'deliveries show DELIVERY_ID [--tenant T] [--json]   (without --tenant: every tenant is searched)',
    example: 'deliveries show dlv_0123',
  },
  {
    command: 'recover',
    usage:
      'recover --tenant T --since TIME [--json]   (re-sends every dead-lettered delivery created at or after TIME and not recovered yet, marks each recovered_by, and removes its dead letter)',
    example: 'recover --tenant acme --since 2026-11-23T10:00:00Z',
  },
  { command: 'stream-failures list', usage: 'stream-failures list [--json]', example: 'stream-failures list' },
  { command: 'stream-failures purge', usage: 'stream-failures purge [--force]', example: 'stream-failures purge --force' },
  { command: 'stream-work list', usage: 'stream-work list [--json]', example: 'stream-work list --json' },
  { command: 'stream-work replay', usage: 'stream-work replay', example: 'stream-work replay' },
];

const { positionals, values } = parseCli('admin', COMMANDS, () =>
  parseArgs({
    allowPositionals: true,
    options: {
      tenant: { type: 'string' },
      scopes: { type: 'string' },
      'key-id': { type: 'string' },
      config: { type: 'string' },
      json: { type: 'boolean', default: false },
      stack: { type: 'string' },
      region: { type: 'string' },
      status: { type: 'string' },
      'event-type': { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      rate: { type: 'string' },
      force: { type: 'boolean', default: false },
      replace: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  }),
);

function fail(message: string): never {
  return failUsage('admin', message);
}

/** A command given rightly that cannot be carried out: what is wrong, exit 1. */
function cannot(message: string): never {
  console.error(`admin: ${message}`);
  process.exit(1);
}

/** Input that is wrong in several places: each on its own line, exit 2 as for any mistake. */
function invalidInput(message: string): never {
  console.error(`admin: ${message}`);
  process.exit(2);
}

function positiveNumber(text: string, option: string): number {
  const n = Number(text);
  return Number.isFinite(n) && n > 0 ? n : fail(`${option} takes a positive number`);
}

function instant(text: string, option: string): Date {
  const at = Date.parse(text);
  return /^\d{4}-\d{2}-\d{2}T/.test(text) && !Number.isNaN(at) ? new Date(at) : fail(`${option} takes an RFC 3339 time, e.g. 2026-11-23T10:00:00Z`);
}

function deliveryFilter() {
  const status = values.status;
  if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status)) fail(`--status is one of ${DELIVERY_STATUSES.join(', ')}`);
  return {
    tenant: values.tenant,
    status: status as DeliveryStatus | undefined,
    eventType: values['event-type'],
    since: values.since ? instant(values.since, '--since') : undefined,
  };
}

interface Target {
  local: boolean;
  /** The deployment's call platform for live tenants (`sandbox`: none) and the countries it has a caller id for. */
  calls: DeploymentCalls;
  streamFailureQueueUrl?: string;
  webhookQueueArn?: string;
  webhookDlqArn?: string;
}

/** Points the shared modules' configuration at the chosen stack before they are loaded. */
async function selectTarget(): Promise<Target> {
  if (values.stack) {
    const cfn = new CloudFormationClient(values.region ? { region: values.region } : {});
    const { Stacks } = await cfn
      .send(new DescribeStacksCommand({ StackName: values.stack }))
      .catch((error: Error) => cannot(stackProblem(values.stack!, error)));
    const outputs = Object.fromEntries((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
    Object.assign(process.env, {
      TABLE_NAME: outputs.TableName,
      WEBHOOK_QUEUE_URL: outputs.WebhookQueueUrl,
      WEBHOOK_DLQ_URL: outputs.WebhookDlqUrl,
      // Keys are created with the operator's credentials, which must allow kms:GenerateMac on this key.
      KEY_SECRETS_KMS_KEY_ID: outputs.ApiKeySecretsKeyArn,
      ...(values.region ? { AWS_REGION: values.region } : {}),
    });
    return {
      local: false,
      calls: { callPlatform: outputs.CallPlatform ?? 'sandbox', callerIdCountries: Object.keys(parseCallerIds(outputs.CallerIds ?? '') ?? {}) },
      webhookQueueArn: outputs.WebhookQueueArn,
      webhookDlqArn: outputs.WebhookDlqArn,
      streamFailureQueueUrl: outputs.StreamFailureQueueUrl,
    };
  }
  const runtimeFile = join(localDataDir(), 'runtime.json');
  if (!existsSync(runtimeFile)) fail(`no running local stack (${runtimeFile} is missing): run \`npm start\` first, or pass --stack NAME`);
  const { env } = JSON.parse(readFileSync(runtimeFile, 'utf8'));
  Object.assign(process.env, env);
  return { local: true, calls: localDeploymentCalls(env), streamFailureQueueUrl: env.STREAM_FAILURE_QUEUE_URL };
}

// The command first: a typo needs no running stack to be told.
if (!knownCommand(COMMANDS, positionals)) {
  const typed = positionals.slice(0, 2).join(' ');
  fail(`unknown command${typed ? ` "${typed}"` : ''}; the commands: ${COMMANDS.map((c) => c.command).join(', ')}`);
}
/**
 * The configuration `tenants put` is given, read and checked before any stack is looked for: the
 * fields it names (a field it leaves out keeps its stored value, or its default).
 */
function readTenantConfigFile(file: string): Record<string, unknown> {
  let input: unknown;
  try {
    input = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    fail(`invalid configuration: ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not JSON (${(error as Error).message})`}`);
  }
  const checked = TenantConfigSchema.safeParse(input);
  // Each problem on a line of its own, with the path to the field, in zod's own words.
  if (!checked.success) invalidInput(`invalid configuration in ${file}:\n${z.prettifyError(checked.error)}`);
  // The write-back endpoint passes the webhook URL checks (the address itself is checked again before every write-back).
  const url = checked.data.writeback.url;
  // Locally a receiver on this machine is allowed, as the local runtime allows it; a deployed stack never sends to one.
  const urlCheck = url ? checkWebhookUrl(url, !values.stack) : undefined;
  if (urlCheck && !urlCheck.ok) invalidInput(`invalid configuration in ${file}:\n✖ ${urlCheck.reason}\n  → at writeback.url`);
  return input as Record<string, unknown>;
}

/** What a change of mode means, said in words (it decides whether real people are called). */
function modeChangeInWords(tenant: string, before: TenantConfig | undefined, after: TenantConfig): string | undefined {
  if ((before?.mode ?? 'sandbox') === after.mode) return undefined;
  return after.mode === 'live'
    ? `${tenant} is now LIVE: orders placed from now on call its real customers; its key_test_ keys stop working and its sandbox orders stay in the simulation.`
    : `${tenant} is now in the SANDBOX: orders placed from now on are simulated; its key_live_ keys stop working and the orders it placed while live are still called live.`;
}
const tenantConfigFile = positionals[0] === 'tenants' && values.config ? readTenantConfigFile(values.config) : undefined;
const target = await selectTarget();
const { createApiKey, revokeApiKey } = await import('#shared/auth/api-keys.ts');
const { TenantConfigRefusedError, putTenantConfig } = await import('#shared/tenants/config-writer.ts');
const { readTenantConfig } = await import('#shared/tenants/store.ts');
const { isScope } = await import('#shared/api/scopes.ts');
const { KEY_RECORD_SECONDS } = await import('#shared/auth/dynamodb-adapters.ts');
const { TENANT_ID_PATTERN } = await import('#shared/tenants/config.ts');
const { queueClient } = await import('#shared/storage/clients.ts');
const { discardDeadLetters, moveDeadLetters, peekDeadLetters } = await import('#shared/queue/dead-letters.ts');

const [area, action] = positionals;
switch (area === 'recover' ? area : `${area} ${action}`) {
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
    console.log(`Revoked ${keyId}; every function instance stops accepting it within ${KEY_RECORD_SECONDS} s.`);
    break;
  }
  case 'keys reissue-legacy': {
    const { reissueLegacyKeys } = await import('#shared/auth/api-keys.ts');
    const reissued = await reissueLegacyKeys();
    if (values.json) console.log(JSON.stringify(reissued));
    else {
      console.log(`${reissued.length} key(s) kept a stored secret, which is no longer honoured; each is revoked and re-issued.`);
      for (const { revoked, created } of reissued) {
        console.log(
          `${revoked} → ${created.key_id} (tenant ${created.tenant}, scopes ${created.scopes.join(',')})\n  Secret (shown once, hand it to the partner now): ${created.secret}`,
        );
      }
    }
    break;
  }
  case 'tenants put': {
    const tenant = values.tenant ?? fail('--tenant is required');
    if (!TENANT_ID_PATTERN.test(tenant)) fail(`--tenant must match ${TENANT_ID_PATTERN}`);
    const given = tenantConfigFile ?? fail('--config FILE is required');
    const written = await putTenantConfig(tenant, given, target.calls, { replace: values.replace }).catch((error: Error) =>
      error instanceof TenantConfigRefusedError ? invalidInput(error.message) : Promise.reject(error),
    );
    if (values.json) {
      console.log(JSON.stringify({ tenant, config: written.config, changes: written.changes }));
      break;
    }
    const what = written.before ? `${written.changes.length} change(s)` : 'a new tenant';
    console.log(`${tenant}: ${what}${values.replace ? ' (the whole configuration replaced)' : ''}`);
    for (const change of written.changes) console.log(`  ${change}`);
    const mode = modeChangeInWords(tenant, written.before, written.config);
    if (mode) console.log(mode);
    break;
  }
  case 'tenants get': {
    const tenant = values.tenant ?? fail('--tenant is required');
    if (!TENANT_ID_PATTERN.test(tenant)) fail(`--tenant must match ${TENANT_ID_PATTERN}`);
    const config = (await readTenantConfig(tenant, { consistent: true })) ?? cannot(`no tenant ${tenant}: it has no configuration (tenants put creates one)`);
    console.log(JSON.stringify(config, null, 2));
    break;
  }
  case 'writeback rotate-secret': {
    const tenant = values.tenant ?? fail('--tenant is required');
    if (!TENANT_ID_PATTERN.test(tenant)) fail(`--tenant must match ${TENANT_ID_PATTERN}`);
    const { rotateWritebackSecret } = await import('#shared/writeback/writeback-secret.ts');
    const rotated = await rotateWritebackSecret(tenant);
    if (values.json) console.log(JSON.stringify({ tenant, ...rotated }));
    else
      console.log(
        `Write-back signing secret of ${tenant} (shown once, hand it to the partner now): ${rotated.secret}` +
          (rotated.previous_valid_until ? `\nThe previous secret keeps signing too until ${rotated.previous_valid_until}.` : ''),
      );
    break;
  }
  case 'dlq list': {
    const { approximate, visible, inFlight, messages } = await peekDeadLetters();
    console.log(
      `${approximate} message(s) in the webhook dead-letter queue${inFlight ? ` (${visible} visible, ${inFlight} in a reader's hands for a moment)` : ''}`,
    );
    for (const m of messages) console.log(`${m.message_id}  delivery=${m.delivery_id}  tenant=${m.tenant}  sent=${m.sent_at}`);
    break;
  }
  case 'dlq redrive': {
    const filtered = values.tenant || values['event-type'] || values.since;
    const rate = values.rate === undefined ? undefined : positiveNumber(values.rate, '--rate');
    if (!target.local && !filtered) {
      const { TaskHandle } = await queueClient().send(
        new StartMessageMoveTaskCommand({
          SourceArn: target.webhookDlqArn,
          DestinationArn: target.webhookQueueArn,
          ...(rate ? { MaxNumberOfMessagesPerSecond: rate } : {}),
        }),
      );
      console.log(`Started the move task ${TaskHandle}: every message goes back to the webhook queue${rate ? ` at ${rate}/s` : ''}.`);
      // Progress until the task ends (Ctrl-C stops watching, not the task).
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 5000));
        const { Results = [] } = await queueClient().send(new ListMessageMoveTasksCommand({ SourceArn: target.webhookDlqArn, MaxResults: 1 }));
        const task = Results.find((t) => t.TaskHandle === TaskHandle) ?? Results[0];
        console.log(`${task?.Status ?? 'UNKNOWN'}: moved ${task?.ApproximateNumberOfMessagesMoved ?? 0} of ${task?.ApproximateNumberOfMessagesToMove ?? '?'}`);
        if (task?.Status !== 'RUNNING') {
          if (task?.FailureReason) fail(`the move task failed: ${task.FailureReason}`);
          break;
        }
      }
      break;
    }
    const { readDelivery } = await import('#shared/webhooks/delivery-store.ts');
    const since = values.since ? instant(values.since, '--since') : undefined;
    const moved = await moveDeadLetters({
      select: async (body) => {
        if (values.tenant && body.tenant !== values.tenant) return false;
        if (!values['event-type'] && !since) return true;
        const d = body.tenant && body.delivery_id ? await readDelivery(body.tenant, body.delivery_id) : undefined;
        return d !== undefined && (!values['event-type'] || d.event_type === values['event-type']) && (!since || Date.parse(d.created_at) >= since.getTime());
      },
      ...(rate ? { ratePerSecond: rate } : {}),
      onProgress: (n) => n % 100 === 0 && console.log(`moved ${n}…`),
    });
    console.log(`Moved ${moved} message(s) back to the webhook queue; the others stay in the dead-letter queue.`);
    break;
  }
  case 'deliveries list': {
    const { findDeliveries } = await import('#shared/webhooks/delivery-ops.ts');
    const limit = values.limit === undefined ? 100 : positiveNumber(values.limit, '--limit');
    const found = [];
    for await (const d of findDeliveries(deliveryFilter())) {
      found.push(d);
      if (found.length >= limit) break;
    }
    if (values.json) console.log(JSON.stringify(found));
    else {
      console.log(`${found.length} deliver${found.length === 1 ? 'y' : 'ies'}${found.length >= limit ? ` (the first ${limit}; --limit N for more)` : ''}`);
      for (const d of found) {
        const last = d.last_attempt ? `${d.last_attempt.status_code ?? d.last_attempt.error} at ${d.last_attempt.at}` : 'no attempt yet';
        const recovered = d.recovered_by ? `  recovered_by=${d.recovered_by}` : '';
        console.log(
          `${d.delivery_id}  tenant=${d.tenant}  ${d.event_type}  ${d.status}${recovered}  attempts=${d.attempts}  created=${d.created_at}  last=${last}`,
        );
      }
    }
    break;
  }
  case 'deliveries show': {
    const { deliveryWithAttempts, findDeliveries } = await import('#shared/webhooks/delivery-ops.ts');
    const id = positionals[2] ?? fail('deliveries show needs a delivery id');
    // Without --tenant the delivery is looked for among every tenant's (a scan: slower on a large table, but on-call has the id alone).
    let tenant = values.tenant;
    if (!tenant)
      for await (const d of findDeliveries({ tenant: undefined, status: undefined, eventType: undefined, since: undefined })) {
        if (d.delivery_id !== id) continue;
        tenant = d.tenant;
        break;
      }
    const found = tenant ? await deliveryWithAttempts(tenant, id) : undefined;
    if (!found) fail(`no delivery ${id}${values.tenant ? ` for tenant ${values.tenant}` : ''}`);
    if (values.json) console.log(JSON.stringify(found));
    else {
      const d = found.delivery;
      console.log(
        `${d.delivery_id}  tenant=${d.tenant}  ${d.event_type}  event=${d.event_id}  ${d.status}  attempts=${d.attempts}  created=${d.created_at}${d.replay_of ? `  replay_of=${d.replay_of}` : ''}`,
      );
      for (const a of found.attempts) {
        console.log(
          `  #${a.attempt}  ${a.at}  ${a.status_code ?? a.error}  ${a.latency_ms} ms${a.response_excerpt ? `  response: ${JSON.stringify(a.response_excerpt)}` : ''}`,
        );
      }
    }
    break;
  }
  case 'recover': {
    const { recoverDeliveries } = await import('#shared/webhooks/delivery-ops.ts');
    const tenant = values.tenant ?? fail('--tenant is required');
    const since = instant(values.since ?? fail('--since TIME is required (RFC 3339)'), '--since');
    const { recovered } = await recoverDeliveries(tenant, since);
    // Their dead letters stand for nothing left to do, nor do those of deliveries the partner
    // recovered itself (POST /webhook-deliveries/recover): they go, so the queue's depth and its alarm clear.
    const originals = new Set(recovered.map((r) => r.original));
    const { readDelivery } = await import('#shared/webhooks/delivery-store.ts');
    const discarded = await discardDeadLetters(
      async (body) =>
        body.tenant === tenant &&
        (originals.has(String(body.delivery_id)) || (await readDelivery(tenant, String(body.delivery_id)))?.recovered_by !== undefined),
    );
    if (values.json) console.log(JSON.stringify(recovered));
    else {
      console.log(
        `Re-sent ${recovered.length} dead-lettered deliver${recovered.length === 1 ? 'y' : 'ies'} of ${tenant} since ${since.toISOString()} (same event ids):`,
      );
      for (const r of recovered) console.log(`  ${r.original} → ${r.replay}`);
      console.log(`Removed their ${discarded} message(s) from the webhook dead-letter queue; each original shows recovered_by.`);
    }
    break;
  }
  case 'stream-failures list': {
    const { peekStreamFailures } = await import('#shared/queue/stream-failures.ts');
    const { approximate, failures } = await peekStreamFailures(target.streamFailureQueueUrl ?? fail('this stack has no stream failure queue output'));
    if (values.json) console.log(JSON.stringify({ approximate, failures }));
    else {
      console.log(`${approximate} stream batch(es) given up after their retries (their work is replayed from stream-work entries; see stream-work list)`);
      for (const f of failures) {
        console.log(
          `${f.failed_at}  ${f.consumer}  ${f.condition}  records ${f.start_sequence_number}…${f.end_sequence_number} (${f.batch_size}, first at ${f.first_record_at})`,
        );
      }
    }
    break;
  }
  case 'stream-failures purge': {
    // The queue is the evidence that records were skipped: it goes only once their work is replayed.
    const { pendingStreamWork } = await import('#shared/stream/stream-work.ts');
    const overdue = (await pendingStreamWork()).filter((p) => p.overdue).length;
    if (overdue > 0 && !values.force) {
      fail(
        `${overdue} item(s) of stream work are overdue and not replayed yet: run stream-work replay (or wait a minute), check stream-work list, then purge (--force purges anyway)`,
      );
    }
    const { purgeStreamFailures } = await import('#shared/queue/stream-failures.ts');
    await purgeStreamFailures(target.streamFailureQueueUrl ?? fail('this stack has no stream failure queue output'));
    console.log('Purged the stream failure queue.');
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
    const { replayReactions } = await import('#functions/workers/reconciler.ts');
    const { EVERYTHING_DUE } = await import('#shared/storage/due-index.ts');
    const { replayed, failed } = await replayOverdueStreamWork(new Date(), replayReactions, EVERYTHING_DUE);
    console.log(`Replayed ${replayed} item(s) through both stream readers' reactions; ${failed} failed and come due again.`);
    if (failed) process.exitCode = 1;
    break;
  }
  default:
    fail(`no handler for "${area} ${action}"`);
}
