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

/**
 * Locally there is no KMS: the root key answers the key's `GenerateMac` calls in the SDK
 * client itself (the same HMAC), so the functions derive secrets through the very client, and
 * under the very permission check, they use on AWS.
 */
export function answerMacsWithRootKey(client: KMSClient, rootKey: Buffer): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'GenerateMacCommand') return next(args);
      const input = args.input as { KeyId: string; Message: Uint8Array; MacAlgorithm: string };
      const Mac = createHmac('sha256', rootKey).update(input.Message).digest();
      return { output: { Mac, KeyId: input.KeyId, MacAlgorithm: input.MacAlgorithm, $metadata: {} } } as never;
    },
    // Innermost of the build step: after the permission check, before anything would be sent or parsed.
    { step: 'build', priority: 'low', name: 'localRootKeyMac', override: true },
  );
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
