import { useQueryClient } from '@tanstack/react-query';
import type { GnwJob } from '#shared/gnw.ts';
import { gnwKeys } from '#web/api/gnw.ts';
import { useConfirmDialog } from '#web/components/confirm-dialog.tsx';
import { FormAlert } from '#web/components/field.tsx';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { cancelGnwJob } from './cancel-flow.ts';

/** Cancel, any time before the session: a question saying what happens to the hold, and a second one for a late cancel's fee. */
export function CancelButton({ job }: { job: GnwJob }) {
  const queryClient = useQueryClient();
  const { dialog, ask } = useConfirmDialog();
  const { error, run } = useActionStatus();
  const cancel = () =>
    run(async () => {
      const cancelled = await cancelGnwJob(job, async (question) => (await ask({ ...question, confirmTone: 'danger' })) !== null);
      if (cancelled) queryClient.setQueryData(gnwKeys.job(job.jobId), cancelled);
    });
  return (
    <div className="stack">
      {dialog}
      <FormAlert message={error} />
      <div>
        <button type="button" className="button link" onClick={() => void cancel()}>
          Cancel this notarization
        </button>
      </div>
    </div>
  );
}
