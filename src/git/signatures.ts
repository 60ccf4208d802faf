import { createHash } from 'node:crypto';

/**
 * What a commit's signature says about its key, read from the signature alone: the kind GitLab
 * files it under, the key it names (an OpenPGP issuer key id, an SSH key's SHA-256 fingerprint).
 * Nothing here checks the signature against a key.
 */
export type CommitSignatureInfo = { kind: 'gpg'; keyId: string | null } | { kind: 'ssh'; fingerprintSha256: string | null } | { kind: 'x509' };

/** The base64 body of an ASCII-armored block (header lines and the `=` checksum left out). */
function armorBody(armored: string): Buffer {
  const lines = armored.split('\n').map((l) => l.trim());
  const body = lines.filter((l) => l !== '' && !l.startsWith('-----') && !/^[\w-]+: /.test(l) && !/^=[A-Za-z0-9+/]{4}$/.test(l));
  return Buffer.from(body.join(''), 'base64');
}

/** An OpenPGP packet's body (RFC 4880 §4.2, old and new length formats); null when it is cut short. */
function firstPacket(data: Buffer): Buffer | null {
  const tag = data[0];
  if (tag === undefined || (tag & 0x80) === 0) return null;
  if (tag & 0x40) {
    const first = data[1] ?? 0;
    if (first < 192) return data.subarray(2, 2 + first);
    if (first < 224) return data.subarray(3, 3 + ((first - 192) << 8) + (data[2] ?? 0) + 192);
    if (first === 255) return data.subarray(6, 6 + data.readUInt32BE(2));
    return null;
  }
  const lengthBytes = [1, 2, 4][tag & 0x03];
  if (!lengthBytes) return data.subarray(1);
  const length = data.readUIntBE(1, lengthBytes);
  return data.subarray(1 + lengthBytes, 1 + lengthBytes + length);
}

/** The issuer key id of a v4+ signature packet: subpacket 16 (key id) or 33 (fingerprint, whose last 8 bytes are the id). */
function issuerKeyId(packet: Buffer): string | null {
  if ((packet[0] ?? 0) < 4) return packet.length >= 15 ? packet.subarray(7, 15).toString('hex').toUpperCase() : null;
  const hashedLength = packet.readUInt16BE(4);
  const areas = [packet.subarray(6, 6 + hashedLength)];
  const unhashedAt = 6 + hashedLength;
  if (packet.length >= unhashedAt + 2) areas.push(packet.subarray(unhashedAt + 2, unhashedAt + 2 + packet.readUInt16BE(unhashedAt)));
  for (const area of areas) {
    for (let at = 0; at < area.length; ) {
      const first = area[at]!;
      let length: number;
      let size: number;
      if (first < 192) [length, size] = [first, 1];
      else if (first < 255) [length, size] = [((first - 192) << 8) + (area[at + 1] ?? 0) + 192, 2];
      else [length, size] = [area.readUInt32BE(at + 1), 5];
      const body = area.subarray(at + size, at + size + length);
      const type = (body[0] ?? 0) & 0x7f;
      if (type === 16 && body.length === 9) return body.subarray(1).toString('hex').toUpperCase();
      if (type === 33 && body.length >= 9)
        return body
          .subarray(body.length - 8)
          .toString('hex')
          .toUpperCase();
      at += size + length;
    }
  }
  return null;
}

/** The SHA-256 fingerprint of the public key an SSHSIG blob carries (`SHA256:<base64>`, as ssh-keygen prints it). */
function sshFingerprint(blob: Buffer): string | null {
  if (blob.subarray(0, 6).toString('latin1') !== 'SSHSIG' || blob.length < 14) return null;
  const keyLength = blob.readUInt32BE(10);
  const key = blob.subarray(14, 14 + keyLength);
  if (key.length !== keyLength) return null;
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/** A commit's `gpgsig` header, read as GitLab tells the three kinds apart (by the armor's first line). */
export function readCommitSignature(armored: string): CommitSignatureInfo | null {
  const head = armored.trimStart();
  try {
    if (head.startsWith('-----BEGIN PGP SIGNATURE-----')) {
      const packet = firstPacket(armorBody(armored));
      return { kind: 'gpg', keyId: packet && issuerKeyId(packet) };
    }
    if (head.startsWith('-----BEGIN SSH SIGNATURE-----')) return { kind: 'ssh', fingerprintSha256: sshFingerprint(armorBody(armored)) };
  } catch {
    // A malformed signature names no key; the commit is still shown as signed, unverified.
    return head.startsWith('-----BEGIN PGP') ? { kind: 'gpg', keyId: null } : { kind: 'ssh', fingerprintSha256: null };
  }
  if (head.startsWith('-----BEGIN SIGNED MESSAGE-----') || head.startsWith('-----BEGIN PKCS7-----')) return { kind: 'x509' };
  return null;
}
