/**
 * Starts one real local stack (DynamoDB Local, the SQS emulator, the local gateway and the
 * pollers) on free ports for the whole run; test files reach it through `inject('stack')`.
 */
import type { TestProject } from 'vitest/node';
import { startLocalStack } from '../../local/stack.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: { baseUrl: string; env: Record<string, string> };
  }
}

export default async function setup(project: TestProject) {
  const stack = await startLocalStack({ env: { AUTH_CACHE_SECONDS: '1' }, reconcileEveryMs: 60_000 });
  project.provide('stack', { baseUrl: stack.baseUrl, env: stack.env });
  return () => stack.stop();
}
