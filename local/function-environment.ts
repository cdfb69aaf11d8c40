/** The environments the local runtime gives: each function its own, as Lambda does, and the operator's tools one of all of them. */
import type { DeployedFunction, Deployment } from './deployment.ts';

/** Environment variables that are settings of the Lambda runtime itself, not of the code: nothing to set in a function's process. */
const PROCESS_LEVEL_VARIABLES = new Set(['NODE_OPTIONS']);

/**
 * What the operator's tools beside the runtime (the admin CLI, a test's own setup) see: every
 * function's template environment together, resolved to the local resources. The functions
 * never see it: each has its own (functionEnvironment).
 */
export function operatorEnvironment(deployment: Deployment): Record<string, string> {
  const env: Record<string, string> = {};
  for (const fn of deployment.functions.values())
    for (const [name, value] of Object.entries(fn.environment)) if (!PROCESS_LEVEL_VARIABLES.has(name)) env[name] ??= value;
  return env;
}

/** What stands in locally for AWS itself: its endpoints, a role's credentials, the region. Every function has them, as on Lambda. */
export interface LocalAws {
  region: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  /** The root key that answers for the KMS key API key secrets are derived with. */
  keyRootFile: string;
}

/**
 * A function's own environment, as Lambda gives it: its template's variables (resolved to the
 * local resources), the stand-ins of AWS's endpoints and credentials, and the local runtime's
 * knobs. A knob (`options.env`) replaces a variable where the function's template has it, and a
 * name no function's template has (CALL_RETRY_DELAY_SECONDS, WEBHOOK_BACKOFF_SCALE, …) reaches
 * every function; a template variable a function lacks it still lacks, so code that needs one
 * its template does not give fails here as it fails on AWS.
 */
export function functionEnvironment(
  fn: DeployedFunction,
  deployment: Deployment,
  aws: LocalAws,
  knobs: Readonly<Record<string, string>>,
): Record<string, string> {
  const templated = new Set([...deployment.functions.values()].flatMap((f) => Object.keys(f.environment)));
  const own = Object.fromEntries(Object.entries(fn.environment).filter(([name]) => !PROCESS_LEVEL_VARIABLES.has(name)));
  return {
    ...own,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: aws.region,
    AWS_LAMBDA_FUNCTION_NAME: fn.name,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    DYNAMODB_ENDPOINT: aws.dynamodbEndpoint,
    SQS_ENDPOINT: aws.sqsEndpoint,
    // The root key answers only for a function given the KMS key.
    ...(own.KEY_SECRETS_KMS_KEY_ID ? { KEY_SECRETS_ROOT_FILE: aws.keyRootFile } : {}),
    ...Object.fromEntries(Object.entries(knobs).filter(([name]) => !templated.has(name) || name in own)),
  };
}
