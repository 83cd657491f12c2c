import { randomBytes, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, type Database } from '#server/db/client.ts';
import { users } from '#server/db/schema/index.ts';
import { makePdf } from '#test/pdf-fixtures.ts';
import { startTsaStandIn, type TsaStandIn } from '#test/tsa-stand-in.ts';
import { getOrIssueNotaryCredentials, type SigningCredentials } from './certificates.ts';
import { appendDocumentTimestamp, signPdf } from './pades.ts';
import { findEmbeddedSignatures, hexDigitsDecoded, readSignatureTimestampToken, readSignerChain } from './signed-pdf.ts';

let database: Database;
let tsa: TsaStandIn;
let credentials: SigningCredentials;
const info = { reason: 'Acknowledgment', location: 'Travis, TX', name: 'Nora Notary', contactInfo: 'nora@example.test' };

beforeAll(async () => {
  tsa = await startTsaStandIn();
  database = await createDatabase({ databaseUrl: null, dataDir: null, loadDataDir: new Blob([fs.readFileSync(inject('pgliteDumpPath'))]) });
  const [user] = await database.db
    .insert(users)
    .values({ email: `nora.${randomBytes(3).toString('hex')}@example.test`, name: 'Nora Notary', roles: ['notary'] })
    .returning({ id: users.id });
  credentials = await getOrIssueNotaryCredentials(database.db, randomBytes(32), {
    userId: user?.id ?? '',
    name: 'Nora Notary',
    email: 'nora@example.test',
    commissionState: 'TX',
    commissionNumber: '1234',
    commissionExpiresOn: '2030-06-30',
  });
});
afterAll(async () => {
  await database?.close();
  await tsa?.close();
});

describe('reading the signatures of a signed PDF', () => {
  it('finds the signature, its timestamp token and the document timestamps after it, each with its signer’s chain', async () => {
    const signed = await signPdf(await makePdf(1), credentials, { ...info, timestampUrl: tsa.url });
    const first = await appendDocumentTimestamp(signed, tsa.url);
    const second = await appendDocumentTimestamp(first.pdf, tsa.url);
    const found = findEmbeddedSignatures(second.pdf);
    expect(found.map((item) => item.kind)).toEqual(['signature', 'document_timestamp', 'document_timestamp']);
    expect(found[2]?.cms.equals(second.token)).toBe(true);
    // Each covers the whole file as it was, its own /Contents excepted.
    expect(found[0]?.signedBytes.length).toBe(signed.length - (found[0]?.byteRange[2] ?? 0) + (found[0]?.byteRange[1] ?? 0));

    const signerChain = readSignerChain(found[0]?.cms ?? Buffer.alloc(0));
    expect(signerChain.map((certificate) => certificate.raw.toString('base64'))).toEqual(
      [credentials.certificatePem, ...credentials.chainPems].map((pem) => new X509Certificate(pem).raw.toString('base64')),
    );
    const signatureToken = readSignatureTimestampToken(found[0]?.cms ?? Buffer.alloc(0));
    expect(signatureToken).not.toBeNull();
    const tsaChain = readSignerChain(signatureToken ?? Buffer.alloc(0)).map((certificate) => certificate.raw.toString('base64'));
    expect(tsaChain).toEqual([tsa.tsaCertPem, tsa.caPem].map((pem) => new X509Certificate(pem).raw.toString('base64')));
    expect(readSignatureTimestampToken(found[1]?.cms ?? Buffer.alloc(0))).toBeNull();
  });

  it('finds nothing in an unsigned PDF', async () => {
    expect(findEmbeddedSignatures(await makePdf(1))).toEqual([]);
  });
});

describe('findEmbeddedSignatures on hostile text (found by attack)', () => {
  it('reads a 10 MB hex string that 300 fake /ByteRange arrays point at once, not 300 times, and finds no signature in it', () => {
    const head = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Length 10000014 >>\nstream\n', 'latin1');
    const hex = Buffer.concat([Buffer.from('<308400000010', 'latin1'), Buffer.alloc(10_000_000, 0x30), Buffer.from('>', 'latin1')]);
    const from = head.length;
    const to = from + hex.length;
    const wide = (value: number) => String(value).padStart(10, '0');
    const ranges = (rest: number) =>
      Buffer.from(`\nendstream\nendobj\n${`/ByteRange [0 ${wide(from)} ${wide(to)} ${wide(rest)}]\n`.repeat(300)}%%EOF\n`, 'latin1');
    const length = head.length + hex.length + ranges(0).length;
    const fixed = Buffer.concat([head, hex, ranges(length - to)]);
    const before = hexDigitsDecoded();
    expect(findEmbeddedSignatures(fixed)).toEqual([]);
    // Its header is read once, not the 10 MB 300 times (which held the event loop for 15 s).
    expect(hexDigitsDecoded() - before).toBeLessThanOrEqual(12);
  });

  it('skips a /Contents whose DER length is not one it reads, instead of throwing', () => {
    const pdf = Buffer.from('%PDF-1.7\n<3085000000000000>\n/ByteRange [0 9 27 20]\n%%EOF padding pad', 'latin1');
    expect(findEmbeddedSignatures(pdf)).toEqual([]);
  });
});
