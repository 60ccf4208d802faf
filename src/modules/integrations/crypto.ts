import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

// Secret settings (tokens, passwords, webhook URLs) are kept as AES-256-GCM ciphertext. The key is
// derived from the instance's token digest key (src/secrets.ts) with a label of its own, so no new
// secret has to be provisioned and the two uses never share a key.
const keys = new Map<string, Buffer>();

function keyFor(tokenDigestKey: string): Buffer {
  let key = keys.get(tokenDigestKey);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', tokenDigestKey, 'forgegate', 'integration-secrets-v1', 32));
    keys.set(tokenDigestKey, key);
  }
  return key;
}

/**
 * iv (12) | tag (16) | ciphertext. `sealedTo` is authenticated with the ciphertext (GCM's associated
 * data): the secrets open only where the same value is given again, so a blob cannot be paired with
 * settings it was not saved with.
 */
export function encryptSecrets(tokenDigestKey: string, values: Record<string, unknown>, sealedTo: string): Uint8Array<ArrayBuffer> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(tokenDigestKey), iv);
  cipher.setAAD(Buffer.from(sealedTo, 'utf8'));
  const body = Buffer.concat([cipher.update(JSON.stringify(values), 'utf8'), cipher.final()]);
  return new Uint8Array(Buffer.concat([iv, cipher.getAuthTag(), body]));
}

/** GCM's plaintext, or null when its tag does not verify (another key, associated data or blob). */
function open(tokenDigestKey: string, data: Buffer, associated: string | null): Buffer | null {
  const decipher = createDecipheriv('aes-256-gcm', keyFor(tokenDigestKey), data.subarray(0, 12));
  decipher.setAuthTag(data.subarray(12, 28));
  if (associated !== null) decipher.setAAD(Buffer.from(associated, 'utf8'));
  try {
    return Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]);
  } catch {
    return null;
  }
}

/**
 * The secrets, or null when the blob was sealed to another value than `sealedTo` (or altered).
 * Blobs written before secrets were sealed carry no associated data and still open, so an upgrade
 * keeps every integration working; saving one seals it. A sealed blob never opens that way: its tag
 * covers the associated data. Such old blobs stay protected by the service's rule that a new
 * destination needs its secrets again.
 */
export function decryptSecrets(tokenDigestKey: string, blob: Uint8Array | null, sealedTo: string): Record<string, unknown> | null {
  if (!blob) return {};
  const data = Buffer.from(blob);
  const plain = open(tokenDigestKey, data, sealedTo) ?? open(tokenDigestKey, data, null);
  return plain ? JSON.parse(plain.toString('utf8')) : null;
}
