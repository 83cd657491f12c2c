import { useState, type FormEvent } from 'react';
import { bypassMethodNames } from '#shared/identity.ts';
import { participantRoles, participantSchema, signerInputSchema, type Job, type Participant, type ParticipantRole } from '#shared/jobs.ts';
import { useConfirmDialog } from '#web/components/confirm-dialog.tsx';
import { Field, FormAlert } from '#web/components/field.tsx';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { api } from '#web/lib/api.ts';
import { useJobMutation } from '#web/api/jobs.ts';
import { labelCellsByHeaders } from '#web/components/stacked-table.ts';
import { describeIdentity, getIdentityAction } from './participant-identity.ts';

/** Signers, witnesses and observers: add, remind, remove, identity bypass (admin or notary). */
export function ParticipantsPanel({ job }: { job: Job }) {
  const { error, notice, run, setError } = useActionStatus();
  const { dialog, ask } = useConfirmDialog();
  const [draft, setDraft] = useState({ name: '', email: '', role: 'signer' as ParticipantRole });
  const add = useJobMutation((input: typeof draft) => api.post(`/api/jobs/${job.id}/signers`, input, participantSchema));
  const remind = useJobMutation((participant: Participant) => api.post(`/api/jobs/${job.id}/signers/${participant.id}/remind`, {}, participantSchema));
  const remove = useJobMutation((participant: Participant) => api.delete(`/api/jobs/${job.id}/signers/${participant.id}`));
  const bypass = useJobMutation(({ participant, enabled, reason, method }: { participant: Participant; enabled: boolean; reason: string; method?: string }) =>
    api.post(`/api/jobs/${job.id}/signers/${participant.id}/id-bypass`, { enabled, reason, ...(method ? { method } : {}) }, participantSchema),
  );
  const isEditable = job.permissions.canEdit && ['draft', 'ready', 'scheduled'].includes(job.status);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = signerInputSchema.safeParse(draft);
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? 'Please check the participant.');
      return;
    }
    void run(async () => {
      await add.mutateAsync(parsed.data);
      setDraft({ name: '', email: '', role: 'signer' });
    }, `Invitation sent to ${parsed.data.email}.`);
  };

  return (
    <section className="card stack" aria-labelledby="participants-title">
      <h2 id="participants-title">Participants</h2>
      {dialog}
      <FormAlert message={error} />
      <FormAlert message={notice} tone="success" />
      {job.participants.length === 0 ? <p className="empty">No signers yet.</p> : null}
      {job.participants.length > 0 ? (
        <table className="table" ref={labelCellsByHeaders}>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Invitation</th>
              <th scope="col">Identity</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {job.participants.map((participant) => (
              <tr key={participant.id}>
                <td>{participant.name}</td>
                <td>{participant.email}</td>
                <td>{participant.role}</td>
                <td>{participant.hasAccount ? 'Accepted' : participant.invitedAt ? 'Sent' : 'Not sent'}</td>
                <td>{describeIdentity(participant)}</td>
                <td className="row">
                  {job.permissions.canEdit && !participant.hasAccount ? (
                    <button
                      type="button"
                      className="button"
                      onClick={() => void run(() => remind.mutateAsync(participant), `Reminder sent to ${participant.email}.`)}
                    >
                      Remind
                    </button>
                  ) : null}
                  {getIdentityAction(participant, job.status, job.permissions.canBypassId) ? (
                    <button
                      type="button"
                      className="button"
                      onClick={async () => {
                        const enabled = !participant.isIdBypassed;
                        let method = '';
                        if (enabled && job.idBypassMethods.length === 0) {
                          setError('The rules of this notary’s commissioning state allow no other way of identifying a person: they take the identity step.');
                          return;
                        }
                        const reason = enabled
                          ? await ask({
                              title: `Let ${participant.name} skip the identity step?`,
                              description: 'Only by a way of identifying them that the notary’s commissioning state allows; the notarized document names it.',
                              choice: {
                                legend: 'How do you know who this person is?',
                                options: job.idBypassMethods.map((value) => ({ value, label: bypassMethodNames[value] })),
                                onChoice: (value) => {
                                  method = value;
                                },
                              },
                              reasonLabel: 'Your reason, as it goes on record',
                              confirmLabel: 'Bypass ID',
                              cancelLabel: 'Cancel',
                            })
                          : '';
                        if (reason === null) return;
                        void run(() => bypass.mutateAsync({ participant, enabled, reason, method }));
                      }}
                    >
                      {participant.isIdBypassed ? 'Require ID' : 'Bypass ID'}
                    </button>
                  ) : null}
                  {isEditable ? (
                    <button
                      type="button"
                      className="button"
                      onClick={async () => {
                        if ((await ask({ title: `Remove ${participant.name} from this job?`, confirmLabel: 'Remove' })) !== null)
                          void run(() => remove.mutateAsync(participant));
                      }}
                    >
                      Remove
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {isEditable ? (
        <form className="row wrap align-end" onSubmit={submit} noValidate aria-label="Invite a participant">
          <Field label="Name" value={draft.name} onChange={(event) => setDraft({ ...draft, name: event.target.value })} />
          <Field label="Email" type="email" value={draft.email} onChange={(event) => setDraft({ ...draft, email: event.target.value })} />
          <div className="field">
            <label htmlFor="participant-role">Role</label>
            <select id="participant-role" value={draft.role} onChange={(event) => setDraft({ ...draft, role: event.target.value as ParticipantRole })}>
              {participantRoles.map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="button primary" disabled={add.isPending}>
            Invite
          </button>
        </form>
      ) : null}
    </section>
  );
}
