/**
 * What an on-call engineer reads in CloudWatch: the functions' log lines and metric points, as
 * Powertools' Logger and Metrics wrote them before these few lines replaced them. Each probe is
 * a fresh process, as a function instance is, since the level is read when the logger loads.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { METRICS_NAMESPACE, SERVICE_NAME } from '#shared/observability/metric-names.ts';
import { repoRoot } from '../../support/paths.ts';

const PROBE = `
const { logger, withLogScope, appendLogKeys } = await import('#shared/logging/logger.ts');
const { countMetric, millisecondsMetric } = await import('#shared/observability/metrics.ts');
withLogScope(() => {
  appendLogKeys({ request_id: 'r-1', tenant: 't-1' });
  logger.info('request completed', { status: 201, empty: '', none: null, missing: undefined, bytes: 12n });
  logger.warn('slow answer', { ms: 2500 });
  const refused = Object.assign(new Error('The conditional request failed', { cause: new TypeError('socket hang up') }), {
    name: 'ConditionalCheckFailedException', code: 'ConditionalCheckFailed', Item: { phone: { S: '+4915100000000' } },
  });
  const looped = { id: 'x' };
  looped.self = looped;
  logger.error('write refused', refused);
  logger.error('odd keys', { looped });
});
countMetric('Requests', { route: 'createOrder', status_class: '2xx' });
millisecondsMetric('CallDuration', 12.6);
`;

interface Lines {
  stdout: Record<string, any>[];
  stderr: Record<string, any>[];
}

function probe(env: Record<string, string>): Lines {
  const run = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', PROBE], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { PATH: process.env.PATH!, AWS_REGION: 'us-east-1', ...env },
  });
  expect(run.status, run.stderr).toBe(0);
  const parse = (text: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, any>);
  return { stdout: parse(run.stdout), stderr: parse(run.stderr) };
}

describe('log lines', () => {
  it('INFO on stdout with the request keys, WARN and ERROR on stderr; keys without a value left off', () => {
    const { stdout, stderr } = probe({
      POWERTOOLS_LOG_LEVEL: 'INFO',
      _X_AMZN_TRACE_ID: 'Root=1-67891233-abcdef012345678912345678;Parent=53995c3f42cd8ad8;Sampled=1',
    });
    const info = stdout.filter((line) => 'level' in line);
    expect(info).toEqual([
      {
        level: 'INFO',
        message: 'request completed',
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        service: SERVICE_NAME,
        xray_trace_id: '1-67891233-abcdef012345678912345678',
        request_id: 'r-1',
        tenant: 't-1',
        status: 201,
        bytes: '12',
      },
    ]);
    expect(stderr.map((line) => [line.level, line.message])).toEqual([
      ['WARN', 'slow answer'],
      ['ERROR', 'write refused'],
      ['ERROR', 'odd keys'],
    ]);
    expect(stderr[0]).toMatchObject({ ms: 2500, request_id: 'r-1', tenant: 't-1' });
  }, 30_000);

  it('an error as its name, where it was thrown, message, stack, code and cause; never the item an SDK error carries', () => {
    const { stderr } = probe({ POWERTOOLS_LOG_LEVEL: 'INFO' });
    const refused = stderr.find((line) => line.message === 'write refused')!;
    expect(refused.error).toEqual({
      name: 'ConditionalCheckFailedException',
      location: expect.stringMatching(/:\d+$/),
      message: 'The conditional request failed',
      stack: expect.stringContaining('The conditional request failed'),
      code: 'ConditionalCheckFailed',
      cause: { name: 'TypeError', location: expect.any(String), message: 'socket hang up', stack: expect.stringContaining('socket hang up') },
    });
    expect(JSON.stringify(stderr)).not.toContain('+4915100000000');
    // A key that refers back to itself is written without the loop, not dropped with the line.
    expect(stderr.find((line) => line.message === 'odd keys')!.looped).toEqual({ id: 'x' });
  }, 30_000);

  it('the level Powertools would choose: Lambda advanced logging controls first, then POWERTOOLS_LOG_LEVEL', () => {
    const warnOnly = probe({ POWERTOOLS_LOG_LEVEL: 'WARN' });
    expect(warnOnly.stdout.filter((line) => 'level' in line)).toEqual([]);
    expect(warnOnly.stderr).toHaveLength(3);
    const lambdaError = probe({ POWERTOOLS_LOG_LEVEL: 'DEBUG', AWS_LAMBDA_LOG_LEVEL: 'ERROR' });
    expect(lambdaError.stderr.map((line) => line.level)).toEqual(['ERROR', 'ERROR']);
    expect(probe({ POWERTOOLS_LOG_LEVEL: 'SILENT' }).stderr).toEqual([]);
  }, 30_000);
});

describe('metric points', () => {
  it('one embedded-metric-format line per point, the service dimension first, whatever the log level', () => {
    const { stdout } = probe({ POWERTOOLS_LOG_LEVEL: 'SILENT' });
    const points = stdout.filter((line) => '_aws' in line);
    expect(points).toEqual([
      {
        _aws: {
          Timestamp: expect.any(Number),
          CloudWatchMetrics: [
            { Namespace: METRICS_NAMESPACE, Dimensions: [['service', 'route', 'status_class']], Metrics: [{ Name: 'Requests', Unit: 'Count' }] },
          ],
        },
        service: SERVICE_NAME,
        route: 'createOrder',
        status_class: '2xx',
        Requests: 1,
      },
      {
        _aws: {
          Timestamp: expect.any(Number),
          CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [['service']], Metrics: [{ Name: 'CallDuration', Unit: 'Milliseconds' }] }],
        },
        service: SERVICE_NAME,
        CallDuration: 13,
      },
    ]);
    expect(Math.abs(points[0]!._aws.Timestamp - Date.now())).toBeLessThan(60_000);
  }, 30_000);
});
