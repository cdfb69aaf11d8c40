/**
 * Each deployed function runs locally as on Lambda: in a process of its own (a worker thread),
 * seeing only its own template environment and keeping its module state to itself. A variable
 * the code needs that its environment lacks fails the function at its start, as on AWS.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type FunctionHosts, startFunctionHosts } from '#local/function-hosts.ts';
import { type PermissionData, permissionCheckFrom } from '#local/permissions.ts';

const NO_POLICIES: PermissionData = {
  policies: [],
  tableArnPrefix: 'arn:aws:dynamodb:us-east-1:000000000000:table/',
  streamArn: '',
  queueArns: [],
  connectInstanceArn: undefined,
};
const echo = (name: string, environment: Record<string, string>) => ({
  name,
  handler: 'test/support/functions/environment-echo.ts',
  timeoutSeconds: 10,
  memoryMb: 256,
  environment,
});

let hosts: FunctionHosts | undefined;
afterAll(() => hosts?.stop());

describe('functions on the local runtime', () => {
  it('each see their own environment only and keep their module state to themselves', async () => {
    const logs: string[] = [];
    hosts = startFunctionHosts({
      functions: [
        echo('first', { TABLE_NAME: 'one', ONLY_FIRST: 'yes' }),
        echo('second', { TABLE_NAME: 'two' }),
        // A real handler whose template gives no TABLE_NAME: its cold start fails, as on AWS.
        { name: 'getCapabilities', handler: 'functions/http/discovery/get-capabilities.ts', timeoutSeconds: 10, memoryMb: 256, environment: {} },
      ],
      permissions: NO_POLICIES,
      check: permissionCheckFrom(NO_POLICIES),
      faults: new Map(),
      costMetering: false,
      log: (line) => logs.push(line),
    });
    const names = ['TABLE_NAME', 'ONLY_FIRST', 'PATH'];
    expect(await hosts.invoke('first', { names })).toEqual({ invocations: 1, env: { TABLE_NAME: 'one', ONLY_FIRST: 'yes', PATH: null } });
    expect(await hosts.invoke('first', { names })).toMatchObject({ invocations: 2 });
    expect(await hosts.invoke('second', { names })).toEqual({ invocations: 1, env: { TABLE_NAME: 'two', ONLY_FIRST: null, PATH: null } });
    expect(process.env.ONLY_FIRST).toBeUndefined();
    expect(hosts.started().sort()).toEqual(['first', 'second']);

    await expect(hosts.invoke('getCapabilities', {})).rejects.toThrow(/TABLE_NAME must be set/);
    expect(logs.join('\n')).toMatch(/getCapabilities: its process ended/);
    // The functions beside it go on.
    expect(await hosts.invoke('second', { names })).toMatchObject({ invocations: 2 });
  });
});
