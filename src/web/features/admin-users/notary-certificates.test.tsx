import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { AdminNotaryCertificates, PlatformCertificate } from '#shared/notaries.ts';
import { adminUserKeys } from './api/admin-user-queries.ts';
import { describeCertificateRevocation, describePlatformCertificate, revocationReasonChoices } from './admin-user-words.ts';
import { NotaryCertificates } from './notary-certificates.tsx';

const userId = '11111111-1111-4111-8111-111111111111';
const valid: PlatformCertificate = {
  serialNumber: '4a1b2c3d4e5f60718293a4b5c6d7e8f9',
  subject: 'CN=Nora Notary, O=Open RON notary',
  notBefore: '2026-01-02T10:00:00.000Z',
  notAfter: '2031-06-30T23:59:59.000Z',
  status: 'valid',
  revokedAt: null,
  revocationReason: null,
  revokedByName: null,
};
const revoked: PlatformCertificate = {
  ...valid,
  serialNumber: '5b2c3d4e5f60718293a4b5c6d7e8f901',
  status: 'revoked',
  revokedAt: '2026-03-04T15:30:00.000Z',
  revocationReason: 'keyCompromise',
  revokedByName: 'Ada Admin',
};
const day = (iso: string) => iso.slice(0, 10);

function render(data: AdminNotaryCertificates): string {
  const client = new QueryClient();
  client.setQueryData(adminUserKeys.certificates(userId), data);
  return renderToStaticMarkup(
    <QueryClientProvider client={client}>
      <NotaryCertificates userId={userId} name="Nora Notary" />
    </QueryClientProvider>,
  );
}

describe('a notary’s signing certificates on the Users page', () => {
  it('says each certificate’s serial, validity and status in sentences, with a revoke action only for one in force', () => {
    const html = render({ items: [valid, revoked], uploaded: null });
    expect(html).toContain('Signing certificates');
    expect(html).toContain(`Serial number ${valid.serialNumber}`);
    expect(html).toContain(`Serial number ${revoked.serialNumber}`);
    expect(html).toContain('In force: valid from Jan 2, 2026 until Jun 30, 2031. Verifiers are told it is good.');
    expect(html).toContain('Revoked on Mar 4, 2026 by Ada Admin, because the key may be known to someone else.');
    expect(html.match(/Revoke this certificate/g)).toHaveLength(1);
    expect(html).toContain(`<span class="visually-hidden"> of Nora Notary, serial number ${valid.serialNumber}</span>`);
    expect(html).not.toMatch(/\d{4}-\d\d-\d\dT/);
  });

  it('says when the notary signs with a certificate of their own, or has none from the platform yet', () => {
    const html = render({ items: [], uploaded: { subject: 'CN=Nora Notary', issuer: 'CN=Example CA\nO=Example', notAfter: '2030-01-01T00:00:00.000Z' } });
    expect(html).toContain('issued by CN=Example CA, O=Example');
    expect(html).toContain('Only its issuer can revoke it.');
    expect(html).toContain('The platform has issued no certificate to Nora Notary yet');
  });

  it('asks before revoking, saying it cannot be undone, and offers the RFC 5280 reasons in words', () => {
    expect(describeCertificateRevocation('Nora Notary', valid.serialNumber)).toEqual({
      title: 'Revoke the certificate of Nora Notary?',
      description: `The certificate with serial number ${valid.serialNumber} is revoked for good: from now on the platform tells every verifier so, and documents signed with it after now will not be trusted. Nora Notary’s next notarization gets a new certificate.`,
      confirmLabel: 'Revoke certificate',
    });
    expect(revocationReasonChoices.map((choice) => choice.value)).toEqual([
      'keyCompromise',
      'affiliationChanged',
      'superseded',
      'cessationOfOperation',
      'privilegeWithdrawn',
      'unspecified',
    ]);
    expect(revocationReasonChoices[0]?.label).toBe('The key may be known to someone else');
    expect(describePlatformCertificate({ ...revoked, revocationReason: 'unspecified', revokedByName: null }, day)).toBe(
      'Revoked on 2026-03-04. It was valid from 2026-01-02 until 2031-06-30; verifiers are told it is revoked.',
    );
    expect(describePlatformCertificate({ ...valid, status: 'expired' }, day)).toBe('Expired: it was valid from 2026-01-02 until 2031-06-30.');
  });
});
