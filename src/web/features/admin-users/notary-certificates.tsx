import { useQuery, useQueryClient } from '@tanstack/react-query';
import { formatDate } from '#shared/dates.ts';
import { revokeCertificateResponseSchema } from '#shared/notaries.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useDecision } from '#web/components/use-decision.tsx';
import { api } from '#web/lib/api.ts';
import { adminUserKeys, notaryCertificatesQueryOptions } from './api/admin-user-queries.ts';
import { describeCertificateRevocation, describePlatformCertificate, revocationReasonChoices } from './admin-user-words.ts';

/**
 * A notary's signing certificates from the platform CA, for administrators: each one's serial,
 * validity and status in words, and revoking one (asked for a reason, confirmed first: it cannot be undone).
 */
export function NotaryCertificates({ userId, name }: { userId: string; name: string }) {
  const queryClient = useQueryClient();
  const certificates = useQuery(notaryCertificatesQueryOptions(userId));
  const { dialog, outcome, busyId, decide } = useDecision();
  const headingId = `user-${userId}-certificates`;

  const revoke = (serialNumber: string, opener: HTMLElement) => {
    let reason = '';
    return decide(
      `certificate-${serialNumber}`,
      opener,
      {
        ...describeCertificateRevocation(name, serialNumber),
        cancelLabel: 'Not now',
        confirmTone: 'danger',
        choice: { legend: 'Why is it revoked?', options: revocationReasonChoices, onChoice: (value) => (reason = value) },
      },
      async () => {
        const result = await api.post(
          `/api/admin/users/${encodeURIComponent(userId)}/certificates/${encodeURIComponent(serialNumber)}/revoke`,
          { reason },
          revokeCertificateResponseSchema,
        );
        await queryClient.invalidateQueries({ queryKey: adminUserKeys.certificates(userId) });
        await queryClient.invalidateQueries({ queryKey: adminUserKeys.audit(userId) });
        return result;
      },
    );
  };

  return (
    <section className="stack" aria-labelledby={headingId}>
      {dialog}
      <h4 id={headingId}>Signing certificates</h4>
      {outcome}
      <FormAlert message={certificates.error?.message ?? null} />
      {certificates.isPending ? <p role="status">Loading the certificates…</p> : null}
      {certificates.data?.uploaded ? (
        <p>
          {name} signs with a certificate of their own, issued by {certificates.data.uploaded.issuer.split('\n').join(', ')} and valid until{' '}
          {formatDate(certificates.data.uploaded.notAfter)}. Only its issuer can revoke it.
        </p>
      ) : null}
      {certificates.data && certificates.data.items.length === 0 ? (
        <p className="empty">The platform has issued no certificate to {name} yet: it issues one at their first notarization.</p>
      ) : null}
      {certificates.data && certificates.data.items.length > 0 ? (
        <ul className="plain stack certificate-list">
          {certificates.data.items.map((certificate) => (
            <li key={certificate.serialNumber} className="stack">
              <p>
                <span className="certificate-serial">Serial number {certificate.serialNumber}</span>
                <br />
                {describePlatformCertificate(certificate)}
              </p>
              {certificate.status === 'valid' ? (
                <div>
                  <button
                    type="button"
                    className="button"
                    disabled={busyId !== null}
                    onClick={(event) => void revoke(certificate.serialNumber, event.currentTarget)}
                  >
                    Revoke this certificate
                    <span className="visually-hidden">
                      {' '}
                      of {name}, serial number {certificate.serialNumber}
                    </span>
                  </button>
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
