import { useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { GnwJob } from '#shared/gnw.ts';
import { gnwApi, gnwKeys } from '#web/api/gnw.ts';
import { useJobDocuments } from '#web/api/jobs.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { paths } from '#web/paths.ts';
import { BookedView } from './booked-view.tsx';
import { CancelButton } from './cancel-button.tsx';
import { DoneStep } from './done-step.tsx';
import { GnwStepper, StepHeading } from './gnw-stepper.tsx';
import { NeedsStep } from './needs-step.tsx';
import { ChooseLane, Matched, Searching, Unmatched } from './notary-step.tsx';
import { PaymentStep } from './payment-step.tsx';
import { describeHold, canCancel, getSetupView, getViewStep, setupViewHeadings, type SetupView } from './setup-view.ts';
import { SlotPicker } from './slot-picker.tsx';
import './gnw.css';

/** "Your documents": the job's PDFs (the page gives the documents panel), then Next once there is one. */
function DocumentsStep({ job, documentsPanel }: { job: GnwJob; documentsPanel: ReactNode }) {
  const queryClient = useQueryClient();
  const documents = useJobDocuments(job.jobId);
  const { error, run } = useActionStatus();
  const count = documents.data?.items.length ?? 0;
  return (
    <div className="stack">
      <p>Add the PDFs to be notarized. You can add or remove them until you go on.</p>
      {documentsPanel}
      <FormAlert message={error} />
      {documents.data && count === 0 ? <p className="muted">Add at least one PDF to go on.</p> : null}
      <div className="actions">
        <button
          type="button"
          className="button primary gnw-primary"
          disabled={count === 0}
          onClick={() => void run(async () => queryClient.setQueryData(gnwKeys.job(job.jobId), await gnwApi.updateJob(job.jobId, { step: 'needs' })))}
        >
          Next: what you need
        </button>
      </div>
    </div>
  );
}

function headingOf(view: SetupView, job: GnwJob): string {
  if (view === 'matched' && job.notaryName) return `${job.notaryName} accepted`;
  return setupViewHeadings[view];
}

function ViewBody({ view, job, documentsPanel }: { view: SetupView; job: GnwJob; documentsPanel: ReactNode }) {
  switch (view) {
    case 'documents':
      return <DocumentsStep job={job} documentsPanel={documentsPanel} />;
    case 'needs':
      return <NeedsStep job={job} />;
    case 'payment':
      return <PaymentStep job={job} />;
    case 'choose-lane':
      return <ChooseLane job={job} />;
    case 'slots':
      return <SlotPicker job={job} />;
    case 'searching':
      return <Searching job={job} />;
    case 'unmatched':
      return <Unmatched job={job} />;
    case 'matched':
      return <Matched job={job} />;
    case 'booked':
      return <BookedView job={job} />;
    case 'done':
      return <DoneStep job={job} />;
    case 'cancelled':
      return (
        <div className="stack">
          <p>{describeHold(job.payment)}</p>
          <p>
            <Link to={paths.notarizeNow}>Start a new notarization</Link>
          </p>
        </div>
      );
  }
}

/**
 * The Notarize Now setup (decision 051): a stepper, then the one screen the job's status and step
 * call for, with its heading focused when the screen changes; cancel stays offered until the session.
 */
export function SetupWizard({ job, documentsPanel }: { job: GnwJob; documentsPanel: ReactNode }) {
  const view = getSetupView(job);
  return (
    <div className="gnw-wizard stack">
      <GnwStepper current={getViewStep(view)} />
      <section className="card stack" aria-labelledby="gnw-step">
        <div id="gnw-step">
          <StepHeading focusKey={view}>{headingOf(view, job)}</StepHeading>
        </div>
        {job.nextStep && view !== 'done' && view !== 'cancelled' ? <p className="muted small">{job.nextStep}</p> : null}
        <ViewBody view={view} job={job} documentsPanel={documentsPanel} />
      </section>
      {canCancel(job) ? <CancelButton job={job} /> : null}
    </div>
  );
}
