import { verify as verifySignature, X509Certificate, type KeyObject } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';
import {
  BasicOCSPResponse,
  id_kp_OCSPSigning,
  id_pkix_ocsp_basic,
  OCSPRequest,
  OCSPResponse,
  OCSPResponseStatus,
  Request,
  TBSRequest,
} from '@peculiar/asn1-ocsp';
import { AsnConvert } from '@peculiar/asn1-schema';
import { CertificateList } from '@peculiar/asn1-x509';
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '#server/db/client.ts';
import { signingCredentials } from '#server/db/schema/index.ts';
import { isNonPublicAddress } from '#server/lib/public-address.ts';
import { pemToDer, readCertificateParts, readChildren, readTlv } from './der.ts';
import { answerPlatformCertIds, createCertId, isCertIdOfIssuer, readCertIdSerial } from './ocsp.ts';
import { readRevocationSources } from './pki-sources.ts';

/** What a long-term (PAdES B-LT) signature embeds so it can be validated after its certificates expire. */
export interface ValidationData {
  /** Every certificate of the chain as DER, leaf first, and a third party's delegated OCSP responder certificate. */
  certificates: Buffer[];
  /** OCSPResponse DER, one per certificate below the root that had one. */
  ocspResponses: Buffer[];
  /** CRL DER, for a certificate whose issuer's OCSP responder did not answer but whose CRL could be read. */
  crls: Buffer[];
  /** Sentences: a certificate whose issuer publishes nothing, or could not be reached. */
  missing: string[];
}

const fetchTimeoutMs = 5000;
const maxOcspResponseBytes = 64 * 1024;
const maxCrlBytes = 10 * 1024 * 1024;
/** Clocks of third parties drift: a little leeway on thisUpdate and nextUpdate. */
const clockSkewMs = 5 * 60_000;
/** An OCSP answer without nextUpdate counts as fresh for a day. */
const ocspWithoutNextUpdateMs = 24 * 3600_000;

/** Signature algorithms by OID, as node:crypto names the digest (null: the key's own, Ed25519). */
const signatureDigests: Record<string, string | null> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.1': 'sha1',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};

function isSignedBy(algorithmOid: string, data: Uint8Array, signature: Uint8Array, key: KeyObject): boolean {
  if (!(algorithmOid in signatureDigests)) return false;
  try {
    return verifySignature(signatureDigests[algorithmOid] ?? null, data, key, signature);
  } catch {
    return false;
  }
}

function describeCertificate(certificate: X509Certificate): string {
  const commonName = /^CN=(.*)$/m.exec(certificate.subject)?.[1] ?? certificate.subject.split('\n')[0] ?? 'a certificate';
  return `the certificate of ${commonName} (serial ${certificate.serialNumber.toLowerCase()})`;
}

/** Where a request may go: the host's addresses, checked, and the one the connection is pinned to. */
async function resolveCheckedAddress(url: URL, isPrivateAllowed: boolean): Promise<{ address: string; family: 4 | 6 }> {
  // URL keeps IPv6 literals in brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: Array<{ address: string; family: number }>;
  if (net.isIP(host)) {
    addresses = [{ address: host, family: net.isIP(host) }];
  } else {
    try {
      addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
    } catch {
      throw new Error('has a name that could not be found');
    }
  }
  const refused = isPrivateAllowed ? undefined : addresses.find((entry) => isNonPublicAddress(entry.address));
  if (refused) throw new Error(`is at a private, loopback or otherwise non-public address (${refused.address}), which the platform does not contact`);
  const [first] = addresses;
  if (!first) throw new Error('has a name with no address');
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** A request to the address checked (a lookup that answers only it), following no redirect, read up to `maxBytes`. */
function requestPinned(
  url: URL,
  target: { address: string; family: 4 | 6 },
  init: { method: string; headers?: Record<string, string>; body?: Uint8Array<ArrayBuffer> },
  maxBytes: number,
  signal: AbortSignal,
): Promise<Buffer> {
  const lookup = ((_hostname: string, options: { all?: boolean } | undefined, callback: (...answer: unknown[]) => void) => {
    if (options?.all) callback(null, [target]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<Buffer>((resolve, reject) => {
    const fail = (error: Error) => {
      request.destroy();
      reject(error);
    };
    // A fresh connection each time: a pooled one may lead to an address checked for another request.
    const request = client.request(url, { method: init.method, headers: init.headers, lookup, agent: false, signal }, (response) => {
      const status = response.statusCode ?? 0;
      if (status < 200 || status >= 300) return fail(new Error(`answered HTTP ${status}`));
      if (Number(response.headers['content-length'] ?? 0) > maxBytes) return fail(new Error('answered more than the size allowed'));
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) fail(new Error('answered more than the size allowed'));
        else chunks.push(chunk);
      });
      response.on('end', () => resolve(Buffer.concat(chunks)));
      response.on('error', () => fail(new Error('broke off its answer')));
    });
    request.on('error', () => reject(signal.aborted ? (signal.reason as Error) : new Error('could not be reached')));
    request.end(init.body);
  });
}

/**
 * Fetches revocation data from an address a certificate names (a notary's uploaded certificate
 * names whatever its maker wrote): the host must resolve only to public addresses unless the
 * operator allows private ones, the connection goes to the address checked, and no redirect is
 * followed (it could lead anywhere).
 */
async function fetchLimited(
  options: { fetch?: typeof fetch; isPrivateAllowed: boolean },
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: Uint8Array<ArrayBuffer> },
  maxBytes: number,
): Promise<Buffer> {
  const signal = AbortSignal.timeout(fetchTimeoutMs);
  const parsed = new URL(url);
  const target = await resolveCheckedAddress(parsed, options.isPrivateAllowed);
  if (!options.fetch) return requestPinned(parsed, target, init, maxBytes, signal);
  const response = await options.fetch(url, { ...init, redirect: 'manual', signal });
  if (!response.ok) throw new Error(`answered HTTP ${response.status}`);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) throw new Error('answered more than the size allowed');
  const reader = response.body?.getReader();
  if (!reader) throw new Error('answered nothing');
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel();
      throw new Error('answered more than the size allowed');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

const isWebUrl = (url: string) => /^https?:\/\//i.test(url);

/**
 * Checks a third party's OCSPResponse: successful, basic, signed by the issuer or by a responder
 * certificate the issuer delegated to (returned so it is embedded too), answering for this
 * certificate, and fresh. Throws a reason otherwise.
 */
function checkOcspResponse(der: Buffer, certificateDer: Buffer, issuerDer: Buffer, issuer: X509Certificate, now: Date): { responderDer: Buffer | null } {
  const response = AsnConvert.parse(der, OCSPResponse);
  if (response.responseStatus !== OCSPResponseStatus.successful || !response.responseBytes) throw new Error('refused the request');
  if (response.responseBytes.responseType !== id_pkix_ocsp_basic) throw new Error('answered in a form other than the basic one');
  const basic = AsnConvert.parse(response.responseBytes.response.buffer, BasicOCSPResponse);
  if (!basic.tbsResponseDataRaw) throw new Error('answered without signed data');
  const issuerParts = readCertificateParts(issuerDer);
  const serial = readCertificateParts(certificateDer).serialHex;
  const single = basic.tbsResponseData.responses.find((entry) => readCertIdSerial(entry.certID) === serial && isCertIdOfIssuer(entry.certID, issuerParts));
  if (!single) throw new Error('answered about another certificate');
  if (single.certStatus.unknown !== undefined) throw new Error('does not know the certificate');
  if (single.thisUpdate.getTime() > now.getTime() + clockSkewMs) throw new Error('answered from the future');
  const freshUntil = single.nextUpdate?.getTime() ?? single.thisUpdate.getTime() + ocspWithoutNextUpdateMs;
  if (freshUntil < now.getTime() - clockSkewMs) throw new Error('answered with an out-of-date status');
  const signed = new Uint8Array(basic.tbsResponseDataRaw);
  const signature = new Uint8Array(basic.signature);
  const algorithm = basic.signatureAlgorithm.algorithm;
  if (isSignedBy(algorithm, signed, signature, issuer.publicKey)) return { responderDer: null };
  // A delegated responder (RFC 6960 4.2.2.2): issued by the issuer, for OCSP signing, valid now.
  for (const candidate of basic.certs ?? []) {
    const candidateDer = Buffer.from(AsnConvert.serialize(candidate));
    const responder = new X509Certificate(candidateDer);
    const isDelegated =
      responder.verify(issuer.publicKey) &&
      (responder.keyUsage ?? []).includes(id_kp_OCSPSigning) &&
      new Date(responder.validFrom).getTime() <= now.getTime() + clockSkewMs &&
      new Date(responder.validTo).getTime() >= now.getTime();
    if (isDelegated && isSignedBy(algorithm, signed, signature, responder.publicKey)) return { responderDer: candidateDer };
  }
  throw new Error('answered with a signature from neither the issuer nor a responder it delegated to');
}

/** Checks a CRL: the issuer's, signed by it, current. Throws a reason otherwise. */
function checkCrl(der: Buffer, issuerDer: Buffer, issuer: X509Certificate, now: Date): void {
  const list = AsnConvert.parse(der, CertificateList);
  if (!list.tbsCertListRaw) throw new Error('is not a CRL');
  const tbsBytes = Buffer.from(list.tbsCertListRaw);
  const fields = readChildren(tbsBytes, readTlv(tbsBytes, 0));
  const issuerField = fields[fields[0]?.tag === 0x02 ? 2 : 1];
  if (!issuerField || !tbsBytes.subarray(issuerField.offset, issuerField.end).equals(readCertificateParts(issuerDer).subjectDer)) {
    throw new Error('is another issuer’s CRL');
  }
  if (!isSignedBy(list.signatureAlgorithm.algorithm, tbsBytes, new Uint8Array(list.signature), issuer.publicKey))
    throw new Error('is not signed by the issuer');
  const nextUpdate = list.tbsCertList.nextUpdate?.getTime();
  if (nextUpdate && nextUpdate.getTime() < now.getTime() - clockSkewMs) throw new Error('is out of date');
}

function createOcspRequest(certificateDer: Buffer, issuerDer: Buffer): Buffer {
  const request = new OCSPRequest({ tbsRequest: new TBSRequest({ requestList: [new Request({ reqCert: createCertId(certificateDer, issuerDer) })] }) });
  return Buffer.from(AsnConvert.serialize(request));
}

/**
 * The revocation data for a chain [leaf, issuer, ..., root] (PEM), for a long-term signature. A
 * certificate the platform CA issued gets its OCSP response made here, by the responder's own code;
 * another issuer's is fetched from its OCSP responder (POST), else from its CRL distribution point
 * (http and https only, 5 s, capped in size), and checked: signed by the issuer (or a responder it
 * delegated to), about that serial, current. The addresses are a certificate's say-so: a loopback,
 * private or link-local one is never contacted unless `isPrivateAllowed` (the operator's choice, for
 * closed networks and tests), and no redirect is followed. A revoked status is returned like a good one: it is the
 * evidence. What could not be had is a sentence in `missing`, never a silent gap.
 */
export async function collectValidationData(
  db: DbOrTx,
  secretsKey: Buffer,
  chainPems: string[],
  options: { fetch?: typeof fetch; now?: Date; isPrivateAllowed?: boolean } = {},
): Promise<{ certificates: Buffer[]; ocspResponses: Buffer[]; crls: Buffer[]; missing: string[] }> {
  const fetching = { isPrivateAllowed: options.isPrivateAllowed ?? false, ...(options.fetch ? { fetch: options.fetch } : {}) };
  const now = options.now ?? new Date();
  const ders = chainPems.map(pemToDer);
  const certificates = [...ders];
  const ocspResponses: Buffer[] = [];
  const crls: Buffer[] = [];
  const missing: string[] = [];
  const platformCas = await db
    .select({ certificatePem: signingCredentials.certificatePem })
    .from(signingCredentials)
    .where(eq(signingCredentials.kind, 'platform_ca'));
  const platformCaDers = platformCas.map((row) => pemToDer(row.certificatePem));

  for (const [index, der] of ders.entries()) {
    const certificate = new X509Certificate(der);
    if (certificate.subject === certificate.issuer && certificate.verify(certificate.publicKey)) continue;
    const name = describeCertificate(certificate);
    const issuerDer = ders[index + 1];
    const issuer = issuerDer ? new X509Certificate(issuerDer) : null;
    if (!issuerDer || !issuer || !certificate.checkIssued(issuer) || !certificate.verify(issuer.publicKey)) {
      missing.push(`The revocation status of ${name} could not be checked: its issuer’s certificate is not in the chain.`);
      continue;
    }
    if (platformCaDers.some((caDer) => caDer.equals(issuerDer))) {
      ocspResponses.push(await answerPlatformCertIds(db, secretsKey, { certIds: [createCertId(der, issuerDer)], nonce: null }, now));
      continue;
    }

    const sources = readRevocationSources(der);
    const failures: string[] = [];
    let isDone = false;
    for (const url of sources.ocspUrls.filter(isWebUrl)) {
      try {
        const answer = await fetchLimited(
          fetching,
          url,
          {
            method: 'POST',
            headers: { 'content-type': 'application/ocsp-request', accept: 'application/ocsp-response' },
            body: new Uint8Array(createOcspRequest(der, issuerDer)),
          },
          maxOcspResponseBytes,
        );
        const { responderDer } = checkOcspResponse(answer, der, issuerDer, issuer, now);
        ocspResponses.push(answer);
        if (responderDer && !certificates.some((known) => known.equals(responderDer))) certificates.push(responderDer);
        isDone = true;
        break;
      } catch (error) {
        failures.push(`its OCSP responder ${url} ${error instanceof Error && error.name !== 'TimeoutError' ? error.message : 'did not answer in time'}`);
      }
    }
    if (isDone) continue;
    for (const url of sources.crlUrls.filter(isWebUrl)) {
      try {
        const list = await fetchLimited(fetching, url, { method: 'GET' }, maxCrlBytes);
        checkCrl(list, issuerDer, issuer, now);
        crls.push(list);
        isDone = true;
        break;
      } catch (error) {
        failures.push(`its CRL at ${url} ${error instanceof Error && error.name !== 'TimeoutError' ? error.message : 'did not arrive in time'}`);
      }
    }
    if (isDone) continue;
    missing.push(
      failures.length
        ? `The revocation status of ${name} could not be had: ${failures.join('; ')}.`
        : `The issuer of ${name} publishes no OCSP responder or CRL, so its revocation status is not in the document.`,
    );
  }
  return { certificates, ocspResponses, crls, missing };
}
