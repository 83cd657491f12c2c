import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { FormAlert } from '#web/components/field.tsx';
import { identityCalls, identityKeys } from '#web/features/identity/api/identity-queries.ts';
import { IdentityStep } from '#web/features/identity/identity-step.tsx';
import { describeResumeLinkError } from '#web/features/identity/identity-words.ts';
import { ApiError } from '#web/lib/api-client.ts';

/** The server's own sentence from an error body ({message}), when it sent one. */
function serverSentenceOf(error: ApiError): string | null {
  const data = error.data;
  return data && typeof data === 'object' && 'message' in data && typeof data.message === 'string' ? data.message : null;
}

/**
 * /verify/resume/:token: the phone opened from 'Continue on your phone' (not signed in). It loads
 * the check the link continues, then runs the identity step with the link's token on every call.
 */
export default function VerifyResumePage() {
  const { token = '' } = useParams();
  const queryClient = useQueryClient();
  const check = useQuery({
    queryKey: identityKeys.resume(token),
    queryFn: async () => {
      const found = await identityCalls.getByResumeToken(token);
      // The step reads the check under its own key: it starts from this answer instead of asking again.
      queryClient.setQueryData(identityKeys.check(found.checkId), found);
      return found;
    },
    retry: false,
    staleTime: Infinity,
  });
  const error = check.error
    ? check.error instanceof ApiError
      ? describeResumeLinkError(check.error.status, serverSentenceOf(check.error))
      : describeResumeLinkError(-1, null)
    : null;
  return (
    <main className="centered-page">
      <div className="verify-resume stack">
        <h1>Your identity step</h1>
        {check.isPending ? <p role="status">Opening your identity step…</p> : null}
        <FormAlert message={error} />
        {check.data ? (
          <IdentityStep jobId={check.data.jobId} checkId={check.data.checkId} mode="phone" resumeToken={token} personName={check.data.personName} />
        ) : null}
      </div>
    </main>
  );
}
