/**
 * X-Ray subsegments for AWS calls: the DynamoDB and SQS clients carry the X-Ray middleware in a
 * Lambda environment deployed with TRACE_AWS_CALLS=true, and nothing of it otherwise (each run
 * is a fresh process, as a function instance is; no AWS call is made).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/paths.ts';

const PROBE = `
await import('#functions/composition-root.ts');
const { dynamoClient, queueClient } = await import('#shared/storage/clients.ts');
const xray = (c) => c.middlewareStack.identify().filter((m) => /xray/i.test(m)).length;
const sdkLogging = (c) => c.middlewareStack.identify().filter((m) => /^loggerMiddleware/.test(m)).length;
console.log(JSON.stringify({ dynamodb: xray(dynamoClient()), sqs: xray(queueClient()), sdkLogging: sdkLogging(dynamoClient()) + sdkLogging(queueClient()) }));
`;

function probe(traceAwsCalls: string) {
  const out = execFileSync(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', PROBE], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH!,
      TRACE_AWS_CALLS: traceAwsCalls,
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      AWS_LAMBDA_FUNCTION_NAME: 'probe',
      TABLE_NAME: 't',
      AWS_REGION: 'us-east-1',
    },
  });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

describe('tracing of AWS calls', () => {
  it('instruments both clients when the stack asks for it, and neither when it does not; neither logs for the SDK', () => {
    // Neither ever renders a call's input and output for the SDK's own logger, which logs nothing (it walked every attribute of every item).
    expect(probe('true')).toEqual({ dynamodb: 1, sqs: 1, sdkLogging: 0 });
    expect(probe('false')).toEqual({ dynamodb: 0, sqs: 0, sdkLogging: 0 });
  }, 30_000);
});
