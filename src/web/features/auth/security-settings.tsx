import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { z } from 'zod';
import { backupCodesSchema, mfaStatusSchema } from '#shared/mfa.ts';
import { FormAlert } from '#web/components/field.tsx';
import { api } from '#web/lib/api.ts';

/** The dashboard's Security tab: second-factor status, backup codes (shown once) and remembered devices. */
export function SecuritySettings() {
  const queryClient = useQueryClient();
  const status = useQuery({ queryKey: ['mfa-status'], queryFn: () => api.get('/api/auth/mfa/status', mfaStatusSchema) });
  const backup = useMutation({
    mutationFn: () => api.post('/api/auth/mfa/backup/generate', undefined, backupCodesSchema),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['mfa-status'] }),
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
            <Link className="button primary" to="/mfa/setup?new=1">
              {data.totpEnabled ? 'Set up a new authenticator' : 'Set up an authenticator app'}
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
          {backup.data ? (
            <div className="notice" role="status">
              <p>
                <strong>Your backup codes.</strong> Each works once. Keep them somewhere safe: they are shown only now.
              </p>
              <ul className="codes" aria-label="Backup codes">
                {backup.data.codes.map((code) => (
                  <li key={code}>
                    <code>{code}</code>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
