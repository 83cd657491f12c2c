import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PdfsigReport {
  /** pdfsig's full text (stdout, then stderr). */
  output: string;
  /** Every signature reads "Signature is Valid." (and there is at least one). */
  isValid: boolean;
  /** Every signer certificate chains to the given CA: "Certificate is Trusted." */
  isTrusted: boolean;
  /** Every signature's byte range covers the whole file: "Total document signed". */
  isTotal: boolean;
  /** Some signature reads "Digest Mismatch." (the signed bytes changed). */
  hasDigestMismatch: boolean;
  signatureCount: number;
}

/**
 * Verifies a PDF's signatures with poppler's `pdfsig`, trusting only `caPem` (a throwaway NSS
 * database holds it). pdfsig exits 0 even on a digest mismatch, so this reads its text.
 * Needs poppler-utils (pdfsig) and libnss3-tools (certutil). For tests and operators.
 * `isRevocationCheckedOnline`: true, NSS also asks the OCSP responder the signer's certificate names;
 * false, never; unset, only when the offline check cannot judge (see below), so that a test's answer
 * never depends on whatever listens at a certificate's PUBLIC_URL.
 */
export async function verifyWithPdfsig(pdf: Buffer, caPem: string, options: { isRevocationCheckedOnline?: boolean } = {}): Promise<PdfsigReport> {
  const directory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ron-pdfsig-'));
  try {
    const nssDirectory = path.join(directory, 'nss');
    const caPath = path.join(directory, 'ca.pem');
    const pdfPath = path.join(directory, 'document.pdf');
    await fs.promises.mkdir(nssDirectory);
    await Promise.all([fs.promises.writeFile(caPath, caPem), fs.promises.writeFile(pdfPath, pdf)]);
    await run('certutil', ['-N', '-d', `sql:${nssDirectory}`, '--empty-password']);
    await run('certutil', ['-A', '-d', `sql:${nssDirectory}`, '-n', 'ron-ca', '-t', 'CT,C,C', '-a', '-i', caPath]);
    const runPdfsig = async (isOnline: boolean): Promise<string> => {
      try {
        const { stdout, stderr } = await run('pdfsig', [...(isOnline ? [] : ['-no-ocsp']), '-nssdir', `sql:${nssDirectory}`, pdfPath], {
          env: { ...process.env, LC_ALL: 'C' },
        });
        return `${stdout}${stderr}`;
      } catch (error) {
        // pdfsig exits non-zero when there is no signature or the file cannot be read.
        const failure = error as { stdout?: string; stderr?: string; code?: unknown };
        if (failure.code === 'ENOENT') throw error;
        return `${failure.stdout ?? ''}${failure.stderr ?? ''}`;
      }
    };
    // NSS asks the OCSP responder a certificate names (PUBLIC_URL/pki/ocsp) unless told not to, and says "Unknown issue" when
    // nothing answers there; told not to (-no-ocsp), poppler 22 says the same of a certificate that names no responder at all.
    // So, unless the caller chose: offline first, and online only when offline could not judge (a chain naming no responder,
    // for which going online asks nobody).
    let output = await runPdfsig(options.isRevocationCheckedOnline === true);
    if (options.isRevocationCheckedOnline === undefined && /Certificate Validation: Unknown issue/.test(output)) output = await runPdfsig(true);
    const blocks = output.split(/^Signature #\d+:$/m).slice(1);
    const every = (pattern: RegExp) => blocks.length > 0 && blocks.every((block) => pattern.test(block));
    return {
      output,
      isValid: every(/^\s*- Signature Validation: Signature is Valid\.$/m),
      isTrusted: every(/^\s*- Certificate Validation: Certificate is Trusted\.$/m),
      isTotal: every(/^\s*- Total document signed$/m),
      hasDigestMismatch: blocks.some((block) => /^\s*- Signature Validation: Digest Mismatch\.$/m.test(block)),
      signatureCount: blocks.length,
    };
  } finally {
    await fs.promises.rm(directory, { recursive: true, force: true });
  }
}
