import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { oids, verifySignature } from '#shared/archive-verify/crypto.ts';

describe('verifySignature with ECDSA', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = new Uint8Array(publicKey.export({ type: 'spki', format: 'der' }));
  const data = new TextEncoder().encode('manifest.json');
  const signature = sign('sha256', data, privateKey);
  const verifyEcdsa = (bytes: Uint8Array) => verifySignature(spki, oids.ecdsaWithSha256, null, data, bytes);

  it('accepts the DER Ecdsa-Sig-Value of the key', async () => {
    expect(await verifyEcdsa(signature)).toBe(true);
  });

  it('refuses a signature whose SEQUENCE or INTEGER tags were changed, though r and s still read the same (found when the platform signer moved to ECDSA)', async () => {
    const rAt = 2;
    const sAt = rAt + 2 + (signature[rAt + 1] ?? 0);
    for (const at of [0, rAt, sAt]) {
      const changed = Buffer.from(signature);
      changed[at] = (changed[at] ?? 0) ^ 0x01;
      expect(await verifyEcdsa(changed), `tag at byte ${at}`).toBe(false);
    }
  });
});
