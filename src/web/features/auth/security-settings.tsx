import { notaryCertificateSchema, type NotaryCertificate } from '#shared/notaries.ts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { z } from 'zod';
import { backupCodesSchema } from '#shared/mfa.ts';
import { formatDate } from '#shared/dates.ts';
import { DropZone } from '#web/components/drop-zone.tsx';
import type { FileRules } from '#web/components/drop-zone-rules.ts';
import { FormAlert, PasswordField } from '#web/components/field.tsx';
import { api } from '#web/lib/api.ts';
import { getStoredUser } from '#web/lib/browser-storage.ts';
import { authKeys, mfaStatusQueryOptions } from './api/auth-queries.ts';
import { BackupCodes } from './backup-codes.tsx';

/** The dashboard's Security tab: second-factor settings, and for notaries the signing certificate. */
export function SecuritySettings() {
  const isNotary = getStoredUser()?.roles?.includes('notary') ?? false;
  return (
    <>
      <TwoStepSettings />
      {isNotary ? <SigningCertificateSettings /> : null}
    </>
  );
}

/** Second-factor status, backup codes (shown once) and remembered devices. */
function TwoStepSettings() {
  const queryClient = useQueryClient();
  const status = useQuery(mfaStatusQueryOptions());
  const backup = useMutation({
    mutationFn: () => api.post('/api/auth/mfa/backup/generate', undefined, backupCodesSchema),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: authKeys.mfaStatus() }),
  });
  const devices = useMutation({ mutationFn: () => api.delete('/api/auth/mfa/devices', z.object({ revoked: z.number() })) });
  const data = status.data;
  return (
    <section className="card stack" aria-labelledby="security-title">
      <h2 id="security-title">Two-step sign-in</h2>
      <FormAlert message={status.error?.message ?? backup.error?.message ?? devices.error?.message ?? null} />
      {status.isPending ? <p role="status">Loading…</p> : null}
      {data ? (
        <>
          <dl className="facts">
            <dt>Authenticator app</dt>
            <dd>{data.totpEnabled ? 'Linked' : 'Not linked'}</dd>
            <dt>Email codes</dt>
            <dd>{data.enrolled && !data.totpEnabled ? 'In use' : `Available (sent to ${data.maskedEmail})`}</dd>
            <dt>Unused backup codes</dt>
            <dd>{data.backupCodesRemaining}</dd>
            <dt>Required for your role</dt>
            <dd>{data.required ? 'Yes' : 'No'}</dd>
          </dl>
          <div className="actions">
            <Link className="button primary" to="/mfa/setup">
              {data.totpEnabled ? 'Replace the authenticator app' : 'Set up an authenticator app'}
            </Link>
            <button type="button" className="button" disabled={!data.enrolled || backup.isPending} onClick={() => backup.mutate()}>
              Create backup codes
            </button>
            <button type="button" className="button" disabled={devices.isPending} onClick={() => devices.mutate()}>
              Forget remembered devices
            </button>
          </div>
          {!data.enrolled ? <p className="muted">Link an authenticator app first; backup codes are for when you lose it.</p> : null}
          {devices.data ? <FormAlert tone="success" message={`${devices.data.revoked} remembered device(s) forgotten. Next sign-in asks for a code.`} /> : null}
          {backup.data ? <BackupCodes codes={backup.data.codes} /> : null}
        </>
      ) : null}
    </section>
  );
}

const certificateRules: FileRules = {
  mimeTypes: ['application/x-pkcs12'],
  extensions: ['.p12', '.pfx'],
  kind: 'a .p12 or .pfx certificate file',
  kindPlural: 'certificate files',
  // A PKCS#12 file with one certificate chain is far smaller; the server refuses more.
  maxBytes: 100 * 1024,
  isMultiple: false,
};
const sourceLabels = { uploaded: 'Your own certificate (uploaded)', platform: 'Issued by the platform' } as const;

function formatDay(iso: string | null): string {
  return iso ? formatDate(iso) : '';
}

/** What the tab says once the notary's own certificate is removed: the platform's is in use only if one was issued. */
export function describeUploadedCertificateRemoved(now: NotaryCertificate): string {
  return now.source === 'platform'
    ? 'Your certificate is removed. The platform certificate is in use again.'
    : 'Your certificate is removed. The platform issues you one when you complete your next notarization.';
}

/** The certificate notarized documents are signed with: the notary's own PKCS#12, or the platform's. */
function SigningCertificateSettings() {
  const queryClient = useQueryClient();
  const certificate = useQuery({ queryKey: authKeys.notaryCertificate(), queryFn: () => api.get('/api/notary/certificate', notaryCertificateSchema) });
  const [file, setFile] = useState<File | null>(null);
  const [password, setPassword] = useState('');
  const [fileError, setFileError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const show = (data: NotaryCertificate) => queryClient.setQueryData(authKeys.notaryCertificate(), data);
  const upload = useMutation({
    mutationFn: (input: { file: File; password: string }) => {
      const form = new FormData();
      form.append('password', input.password);
      form.append('p12', input.file, input.file.name);
      setProgress(0);
      return api.upload('/api/notary/certificate', form, setProgress, notaryCertificateSchema);
    },
    onSuccess: (data) => {
      show(data);
      setFile(null);
      setPassword('');
    },
    onSettled: () => setProgress(null),
  });
  const remove = useMutation({ mutationFn: () => api.delete('/api/notary/certificate', notaryCertificateSchema), onSuccess: show });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    upload.reset();
    remove.reset();
    if (!file) return setFileError('Choose your certificate file (.p12 or .pfx).');
    setFileError(null);
    upload.mutate({ file, password });
  };

  const data = certificate.data;
  const isBusy = upload.isPending || remove.isPending;
  return (
    <section className="card stack" aria-labelledby="signing-certificate-title">
      <h2 id="signing-certificate-title">Signing certificate</h2>
      <p className="muted">Notarized documents are signed with this certificate. The platform issues you one, or you can use your own from a PKCS#12 file.</p>
      <FormAlert message={certificate.error?.message ?? upload.error?.message ?? remove.error?.message ?? null} />
      {upload.isSuccess ? <FormAlert tone="success" message="Your certificate is in use: your next notarizations are signed with it." /> : null}
      {remove.data ? <FormAlert tone="success" message={describeUploadedCertificateRemoved(remove.data)} /> : null}
      {certificate.isPending ? <p role="status">Loading…</p> : null}
      {data ? (
        data.source ? (
          <dl className="facts">
            <dt>In use</dt>
            <dd>{sourceLabels[data.source]}</dd>
            <dt>Subject</dt>
            <dd>{data.subject}</dd>
            <dt>Issued by</dt>
            <dd>{data.issuer}</dd>
            <dt>Serial number</dt>
            <dd>
              <code>{data.serialNumber}</code>
            </dd>
            <dt>Valid</dt>
            <dd>
              {formatDay(data.notBefore)} to {formatDay(data.notAfter)}
            </dd>
          </dl>
        ) : (
          <p>No certificate yet: the platform issues you one when you complete your next notarization.</p>
        )
      ) : null}
      {data?.source === 'uploaded' ? (
        <div className="actions">
          <button
            type="button"
            className="button"
            disabled={isBusy}
            onClick={() => {
              upload.reset();
              remove.mutate();
            }}
          >
            Use the platform certificate again
          </button>
        </div>
      ) : null}
      <form className="stack" onSubmit={submit} aria-labelledby="upload-certificate-title" noValidate>
        <h3 id="upload-certificate-title">{data?.source === 'uploaded' ? 'Replace your certificate' : 'Use your own certificate'}</h3>
        <DropZone
          label="Certificate file (.p12 or .pfx)"
          buttonLabel={file ? 'Choose another file' : 'Choose a certificate file'}
          rules={certificateRules}
          disabled={isBusy}
          hint="It holds your certificate, its private key and the issuing chain."
          error={fileError}
          onFiles={([chosen]) => {
            setFile(chosen ?? null);
            setFileError(null);
          }}
        >
          {file ? (
            <p className="drop-zone-chosen" role="status">
              Chosen: {file.name}
            </p>
          ) : null}
        </DropZone>
        <PasswordField label="Certificate file password" autoComplete="off" value={password} onChange={(event) => setPassword(event.currentTarget.value)} />
        {progress !== null ? <p role="status">Uploading… {Math.round(progress * 100)}%</p> : null}
        <div className="actions">
          <button type="submit" className="button primary" disabled={isBusy}>
            Upload
          </button>
        </div>
      </form>
    </section>
  );
}
