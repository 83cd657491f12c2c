import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';

/**
 * Test helpers that read a long-term PDF the way an outside verifier would: the DSS streams with
 * pdf-lib, each OCSP response and timestamp token with OpenSSL.
 */

const run = promisify(execFile);

export interface DssContents {
  certificates: Buffer[];
  ocspResponses: Buffer[];
  crls: Buffer[];
  /** Keys of /VRI (upper-case hex SHA-1 of each signature's /Contents). */
  vriKeys: string[];
}

function readStreams(dss: PDFDict, key: string): Buffer[] {
  const array = dss.lookupMaybe(PDFName.of(key), PDFArray);
  if (!array) return [];
  return array.asArray().map((_, index) => Buffer.from(decodePDFRawStream(array.lookup(index, PDFRawStream)).decode()));
}

/** The catalog's /DSS as the last revision has it; null without one. */
export async function readDss(pdf: Buffer): Promise<DssContents | null> {
  const document = await PDFDocument.load(pdf, { updateMetadata: false });
  const dss = document.catalog.lookupMaybe(PDFName.of('DSS'), PDFDict);
  if (!dss) return null;
  const vri = dss.lookupMaybe(PDFName.of('VRI'), PDFDict);
  return {
    certificates: readStreams(dss, 'Certs'),
    ocspResponses: readStreams(dss, 'OCSPs'),
    crls: readStreams(dss, 'CRLs'),
    vriKeys: vri ? vri.keys().map((name) => name.decodeText()) : [],
  };
}

/** Runs a command in a fresh folder holding `files`; resolves with its output, or with the failure's. */
export async function runInFolder(
  command: string,
  args: (folder: string) => string[],
  files: Record<string, Buffer | string>,
): Promise<{ isOk: boolean; output: string }> {
  const folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ron-ltv-'));
  try {
    for (const [name, content] of Object.entries(files)) await fs.promises.writeFile(path.join(folder, name), content);
    try {
      const { stdout, stderr } = await run(command, args(folder), { env: { ...process.env, LC_ALL: 'C' } });
      return { isOk: true, output: `${stdout}${stderr}` };
    } catch (error) {
      const failure = error as { stdout?: string; stderr?: string };
      return { isOk: false, output: `${failure.stdout ?? ''}${failure.stderr ?? ''}` };
    }
  } finally {
    await fs.promises.rm(folder, { recursive: true, force: true });
  }
}

export interface OcspCheck {
  isVerified: boolean;
  status: string | null;
  producedAt: Date | null;
  output: string;
}

/** `openssl ocsp -respin … -issuer ca.pem -CAfile ca.pem -resp_text`: verified, the status it gives and when it was produced. */
export async function checkOcspResponse(response: Buffer, caPem: string): Promise<OcspCheck> {
  const result = await runInFolder(
    'openssl',
    (folder) => [
      'ocsp',
      '-respin',
      path.join(folder, 'resp.der'),
      '-issuer',
      path.join(folder, 'ca.pem'),
      '-CAfile',
      path.join(folder, 'ca.pem'),
      '-resp_text',
    ],
    { 'resp.der': response, 'ca.pem': caPem },
  );
  const producedAt = result.output.match(/Produced At: (.+)$/m)?.[1];
  return {
    isVerified: result.isOk && /Response verify OK/.test(result.output),
    status: result.output.match(/Cert Status: (\w+)/)?.[1] ?? null,
    producedAt: producedAt ? new Date(producedAt) : null,
    output: result.output,
  };
}

/** `openssl ts -verify` of a document timestamp token over the bytes its ByteRange covers. */
export async function verifyTimestampToken(
  token: Buffer,
  signedBytes: Buffer,
  caPem: string,
  untrustedPem = '',
): Promise<{ isVerified: boolean; output: string }> {
  const result = await runInFolder(
    'openssl',
    (folder) => [
      'ts',
      '-verify',
      '-data',
      path.join(folder, 'data.bin'),
      '-in',
      path.join(folder, 'token.der'),
      '-token_in',
      '-CAfile',
      path.join(folder, 'ca.pem'),
      ...(untrustedPem ? ['-untrusted', path.join(folder, 'untrusted.pem')] : []),
    ],
    { 'data.bin': signedBytes, 'token.der': token, 'ca.pem': caPem, 'untrusted.pem': untrustedPem },
  );
  return { isVerified: result.isOk && /Verification: OK/.test(result.output), output: result.output };
}

/** `openssl cms -verify` of a detached PAdES signature over its signed bytes, as of `at`. */
export async function verifyCmsAt(cms: Buffer, signedBytes: Buffer, caPem: string, at: Date): Promise<{ isVerified: boolean; output: string }> {
  const result = await runInFolder(
    'openssl',
    (folder) => [
      'cms',
      '-verify',
      '-binary',
      '-inform',
      'DER',
      '-in',
      path.join(folder, 'sig.der'),
      '-content',
      path.join(folder, 'signedbytes.bin'),
      '-CAfile',
      path.join(folder, 'ca.pem'),
      '-purpose',
      'any',
      '-attime',
      String(Math.floor(at.getTime() / 1000)),
      '-out',
      path.join(folder, 'out.bin'),
    ],
    { 'sig.der': cms, 'signedbytes.bin': signedBytes, 'ca.pem': caPem },
  );
  return { isVerified: result.isOk && /Verification successful/.test(result.output), output: result.output };
}
