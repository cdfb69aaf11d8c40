/**
 * Starts one real local stack (DynamoDB Local, the SQS emulator, the local gateway and the
 * pollers) on free ports for the whole run; test files reach it through `inject('stack')`.
 * The handlers' JSON log lines go to a file instead of the terminal, so tests can search
 * what was logged (no phone numbers, secrets or bodies) and CI output stays readable.
 */
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { captureJsonLogs } from '#local/log-capture.ts';
import { startLocalStack } from '#local/stack.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: { baseUrl: string; env: Record<string, string> };
    /** What the local runtime runs each function and poller with (compared with the template by test/e2e/deploy-parity). */
    localSettings: {
      functions: { name: string; timeoutSeconds: number; memoryMb: number; reservedConcurrency?: number }[];
      pollers: Record<string, unknown>;
    };
    logFile: string;
  }
}

export default async function setup(project: TestProject) {
  const logFile = join(mkdtempSync(join(tmpdir(), 'commerce-logs-')), 'handlers.ndjson');
  const restore = captureJsonLogs(logFile);
  const stack = await startLocalStack({
    env: {
      AUTH_CACHE_SECONDS: '1',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      CALL_RETRY_DELAY_SECONDS: '1',
      VARIANT_INDEX_GRACE_SECONDS: '30',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_BACKOFF_SCALE: '0.0001',
      WEBHOOK_TIMEOUT_SCALE: '0.1',
    },
    reconcileEveryMs: 60_000,
    // The runtime's own lines (a poller's error, a skipped stream record) beside the handlers'.
    log: (line: string) => appendFileSync(logFile, `${JSON.stringify({ level: 'RUNTIME', timestamp: new Date().toISOString(), message: line })}\n`),
  });
  project.provide('stack', { baseUrl: stack.baseUrl, env: stack.env });
  project.provide('logFile', logFile);
  project.provide('localSettings', {
    functions: [...stack.deployment.functions.values()].map(({ name, timeoutSeconds, memoryMb, reservedConcurrency }) => ({
      name,
      timeoutSeconds,
      memoryMb,
      ...(reservedConcurrency !== undefined ? { reservedConcurrency } : {}),
    })),
    pollers: stack.pollerSettings,
  });
  console.log(`handler logs: ${logFile}`);
  return async () => {
    await stack.stop();
    restore();
    if (process.env.PERMISSIONS_REPORT) writeFileSync(process.env.PERMISSIONS_REPORT, JSON.stringify([...stack.usedActions].sort(), null, 1));
    // Every function ran under its synthesized policy: a refused call is a grant missing on AWS.
    if (stack.refusedCalls.length) {
      throw new Error(`The functions' policies refused ${stack.refusedCalls.length} call(s):\n${[...new Set(stack.refusedCalls)].join('\n')}`);
    }
  };
}
