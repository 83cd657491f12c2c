import { describe, expect, it } from 'vitest';
import type { NotaryCertificate } from '#shared/notaries.ts';
import { describeUploadedCertificateRemoved } from './security-settings.tsx';

const none: NotaryCertificate = { source: null, subject: null, issuer: null, serialNumber: null, notBefore: null, notAfter: null };

describe('the Security tab after a notary stops using their own certificate', () => {
  it('says the platform certificate is in use again only when the platform has issued one', () => {
    const platform: NotaryCertificate = {
      source: 'platform',
      subject: 'CN=Nora Notary',
      issuer: 'CN=Open RON platform CA',
      serialNumber: '4a1b',
      notBefore: '2026-01-02T10:00:00.000Z',
      notAfter: '2031-06-30T23:59:59.000Z',
    };
    expect(describeUploadedCertificateRemoved(platform)).toBe('Your certificate is removed. The platform certificate is in use again.');
  });

  it('with none issued yet, says the platform issues one at the next notarization, never that one is in use', () => {
    const sentence = describeUploadedCertificateRemoved(none);
    expect(sentence).toBe('Your certificate is removed. The platform issues you one when you complete your next notarization.');
    expect(sentence).not.toContain('in use');
  });
});
