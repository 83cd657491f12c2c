import { AsnConvert } from '@peculiar/asn1-schema';
import {
  AccessDescription,
  AuthorityInfoAccessSyntax,
  CRLDistributionPoints,
  DistributionPoint,
  DistributionPointName,
  GeneralName,
  id_ad_caIssuers,
  id_ad_ocsp,
  id_ce_cRLDistributionPoints,
  id_pe_authorityInfoAccess,
} from '@peculiar/asn1-x509';
import { pemToDer, readCertificateParts } from './der.ts';

/** Where the platform CA publishes itself and its revocation data, under PUBLIC_URL (decision 057). */
export const pkiPaths = { caCertificate: '/pki/ca.crt', crl: '/pki/crl', ocsp: '/pki/ocsp' } as const;

export interface RevocationSources {
  crlUrl: string;
  ocspUrl: string;
  caIssuersUrl: string;
}

export function getRevocationSources(publicUrl: string): RevocationSources {
  const origin = new URL(publicUrl).origin;
  return { crlUrl: `${origin}${pkiPaths.crl}`, ocspUrl: `${origin}${pkiPaths.ocsp}`, caIssuersUrl: `${origin}${pkiPaths.caCertificate}` };
}

/**
 * The deployment's PUBLIC_URL, recorded by buildApp: one per deployment, and the callers that issue
 * certificates (notarization, the journal export) then name it without a new argument.
 */
let configuredPublicUrl: string | null = null;

export function setPkiPublicUrl(publicUrl: string): void {
  configuredPublicUrl = new URL(publicUrl).origin;
}

export function getPkiPublicUrl(): string | null {
  return configuredPublicUrl;
}

const binary = (bytes: ArrayBuffer) => Buffer.from(bytes).toString('binary');

/** The CRL distribution point and authority information access extensions, in node-forge's raw form. */
export function buildRevocationExtensions(publicUrl: string): object[] {
  const sources = getRevocationSources(publicUrl);
  const distributionPoints = new CRLDistributionPoints([
    new DistributionPoint({
      distributionPoint: new DistributionPointName({ fullName: [new GeneralName({ uniformResourceIdentifier: sources.crlUrl })] }),
    }),
  ]);
  const authorityAccess = new AuthorityInfoAccessSyntax([
    new AccessDescription({ accessMethod: id_ad_ocsp, accessLocation: new GeneralName({ uniformResourceIdentifier: sources.ocspUrl }) }),
    new AccessDescription({ accessMethod: id_ad_caIssuers, accessLocation: new GeneralName({ uniformResourceIdentifier: sources.caIssuersUrl }) }),
  ]);
  return [
    { id: id_ce_cRLDistributionPoints, value: binary(AsnConvert.serialize(distributionPoints)) },
    { id: id_pe_authorityInfoAccess, value: binary(AsnConvert.serialize(authorityAccess)) },
  ];
}

/** The URLs a certificate names for its revocation data: OCSP responders, CRL distribution points, the issuer's certificate. */
export function readRevocationSources(certificateDer: Uint8Array): { ocspUrls: string[]; crlUrls: string[]; caIssuersUrls: string[] } {
  const { extensions } = readCertificateParts(certificateDer);
  const ocspUrls: string[] = [];
  const caIssuersUrls: string[] = [];
  const crlUrls: string[] = [];
  const access = extensions.get(id_pe_authorityInfoAccess);
  if (access) {
    for (const description of AsnConvert.parse(access, AuthorityInfoAccessSyntax)) {
      const url = description.accessLocation.uniformResourceIdentifier;
      if (!url) continue;
      if (description.accessMethod === id_ad_ocsp) ocspUrls.push(url);
      if (description.accessMethod === id_ad_caIssuers) caIssuersUrls.push(url);
    }
  }
  const points = extensions.get(id_ce_cRLDistributionPoints);
  if (points) {
    for (const point of AsnConvert.parse(points, CRLDistributionPoints)) {
      for (const name of point.distributionPoint?.fullName ?? []) if (name.uniformResourceIdentifier) crlUrls.push(name.uniformResourceIdentifier);
    }
  }
  return { ocspUrls, crlUrls, caIssuersUrls };
}

/** Whether a certificate names exactly this deployment's OCSP responder and CRL (a certificate from before, or from another PUBLIC_URL, does not). */
export function namesRevocationSources(certificatePem: string, publicUrl: string): boolean {
  try {
    const named = readRevocationSources(pemToDer(certificatePem));
    const expected = getRevocationSources(publicUrl);
    return named.ocspUrls.includes(expected.ocspUrl) && named.crlUrls.includes(expected.crlUrl);
  } catch {
    return false;
  }
}
