/**
 * Which function's invocation a piece of work belongs to. The local runtime runs every handler
 * in one process; an AsyncLocalStorage context carried across every await tells the permission
 * check whose policy applies and whether that invocation has passed its timeout.
 *
 * Work outside any invocation (the runtime starting up, the admin CLI, a test's own setup) is
 * the operator's and is not checked, as an operator's credentials are not a function's role.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface Invocation {
  readonly functionName: string;
  /** Set once the function's configured timeout has passed: Lambda would have stopped it. */
  timedOut: boolean;
}

const current = new AsyncLocalStorage<Invocation>();

export const currentInvocation = (): Invocation | undefined => current.getStore();

/** What Lambda reports when a function runs past its timeout. */
export class FunctionTimeoutError extends Error {
  override readonly name = 'FunctionTimeoutError';
  constructor(functionName: string, timeoutSeconds: number) {
    super(`${functionName}: Task timed out after ${timeoutSeconds.toFixed(2)} seconds`);
  }
}

/**
 * Runs `work` as one invocation of `functionName`, ended after `timeoutSeconds` as Lambda ends
 * it: the caller gets a FunctionTimeoutError, and every AWS call the abandoned work still makes
 * is refused (Lambda freezes and recycles the sandbox; nothing of it reaches AWS any more).
 */
export async function invoke<R>(functionName: string, timeoutSeconds: number, work: () => Promise<R>): Promise<R> {
  const invocation: Invocation = { functionName, timedOut: false };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      invocation.timedOut = true;
      reject(new FunctionTimeoutError(functionName, timeoutSeconds));
    }, timeoutSeconds * 1000);
  });
  try {
    return await Promise.race([current.run(invocation, work), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `work` under a function's identity without a deadline (its event source's polling, done with its role). */
export const asFunction = <R>(functionName: string, work: () => R): R => current.run({ functionName, timedOut: false }, work);
