/**
 * The key-secret deriver a function uses, built on first use from its configuration: the KMS
 * HMAC key on AWS, the local root key file offline (see key-secrets.ts for why secrets are
 * derived, never stored).
 */
import { readFileSync } from 'node:fs';
import { KMSClient } from '@aws-sdk/client-kms';
import { runtimeConfig } from '../config/runtime.ts';
import { decorated, withoutSdkLogging } from '../storage/clients.ts';
import { answerMacsWithRootKey, type KeySecrets, kmsKeySecrets, rootKeySecrets } from './key-secrets.ts';

let keySecretsInstance: KeySecrets | undefined;

/** How this function derives API key secrets: the KMS HMAC key on AWS, the local root key file offline. */
export function keySecrets(): KeySecrets {
  if (keySecretsInstance) return keySecretsInstance;
  const config = runtimeConfig();
  if (config.keySecretsKmsKeyId) {
    const client = withoutSdkLogging(new KMSClient({ region: config.region }));
    // The local runtime names a key too (its permissions are checked like AWS's), and its root key stands in for KMS.
    if (config.keySecretsRootFile) answerMacsWithRootKey(client, readFileSync(config.keySecretsRootFile));
    keySecretsInstance = kmsKeySecrets(decorated('kms', client), config.keySecretsKmsKeyId);
  } else if (config.keySecretsRootFile) {
    keySecretsInstance = rootKeySecrets(readFileSync(config.keySecretsRootFile));
  } else {
    throw new Error('No way to derive API key secrets: set KEY_SECRETS_KMS_KEY_ID (AWS) or KEY_SECRETS_ROOT_FILE (local)');
  }
  return keySecretsInstance;
}
