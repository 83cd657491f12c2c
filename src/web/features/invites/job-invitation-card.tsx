import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { acceptInviteResponseSchema, jobInvitationLookupSchema } from '#shared/invites.ts';
import { participantRoleVerbs } from '#shared/jobs.ts';
import { jobKeys } from '#web/api/jobs.ts';
import { notificationKeys } from '#web/api/notifications.ts';
import { FormAlert } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';

/** The invitation of a job to the signed-in person's confirmed address; null when there is none. */
export function useJobInvitation(jobId: string | null) {
  return useQuery({
    queryKey: jobKeys.invitation(jobId),
    queryFn: async () => {
      try {
        // null when the person sees the job without an invitation (no error, nothing logged)
        return await api.get(`/api/invites/jobs/${jobId}`, jobInvitationLookupSchema);
      } catch (error) {
        // 404: the person may not see the job at all (it opens once an invitation is accepted)
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
    enabled: Boolean(jobId),
    retry: false,
  });
}

/** Offers to accept a job's invitation, as the emailed link would; the job opens once accepted. */
export function JobInvitationCard({ jobId }: { jobId: string }) {
  const queryClient = useQueryClient();
  const invitation = useJobInvitation(jobId);
  const accept = useMutation({
    mutationFn: () => api.post(`/api/invites/jobs/${jobId}/accept`, undefined, acceptInviteResponseSchema),
    onSuccess: () => Promise.all([queryClient.invalidateQueries({ queryKey: jobKeys.all }), queryClient.invalidateQueries({ queryKey: notificationKeys.all })]),
  });
  if (!invitation.data) return null;
  const { jobTitle, role, participantName } = invitation.data;
  return (
    <section className="card stack" aria-labelledby="invitation-title">
      <h2 id="invitation-title">
        You are invited to {participantRoleVerbs[role]} “{jobTitle}”
      </h2>
      <p>The invitation was sent to your email address, for {participantName}. Accept it to see the job, its documents and its session.</p>
      <FormAlert message={accept.error?.message ?? null} />
      <div className="actions">
        <button type="button" className="button primary" disabled={accept.isPending} onClick={() => accept.mutate()}>
          {accept.isPending ? 'Accepting…' : 'Accept invitation'}
        </button>
      </div>
    </section>
  );
}
