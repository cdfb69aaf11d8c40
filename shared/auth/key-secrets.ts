/**
 * API key secrets are never stored: each is derived from its key id when needed, by an HMAC
 * whose key only the authenticating code can use. On AWS that is a KMS HMAC key (GenerateMac;
 * the key material never leaves KMS, and only the API functions' roles may call it); locally a
 * root key kept in the runtime's data directory (mode 0600). Anyone who reads the table,
 * its stream, a backup or an export learns key ids and scopes, never a usable secret.
 */
import { createHmac } from 'node:crypto';
import { GenerateMacCommand, type KMSClient } from '@aws-sdk/client-kms';

export interface KeySecrets {
  secretFor(keyId: string): Promise<string>;
}

/** What the HMAC covers: a version, so the derivation can change without reusing secrets. */
const derivationInput = (keyId: string) => `commerce-interface/api-key-secret/v1\n${keyId}`;

export function rootKeySecrets(rootKey: Buffer): KeySecrets {
  return { secretFor: async (keyId) => createHmac('sha256', rootKey).update(derivationInput(keyId)).digest('base64url') };
}

export function kmsKeySecrets(client: KMSClient, kmsKeyId: string): KeySecrets {
  return {
    async secretFor(keyId) {
      const { Mac } = await client.send(
        new GenerateMacCommand({ KeyId: kmsKeyId, MacAlgorithm: 'HMAC_SHA_256', Message: Buffer.from(derivationInput(keyId)) }),
      );
      return Buffer.from(Mac!).toString('base64url');
    },
  };
}
