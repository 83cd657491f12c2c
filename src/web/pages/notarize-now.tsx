import '#web/features/gnw/gnw-entry.css';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { gnwApi, gnwKeys } from '#web/api/gnw.ts';
import { publicConfigQueryOptions } from '#web/api/system.ts';
import { PageChatOpener } from '#web/components/chat-opener.tsx';
import { DropZone } from '#web/components/drop-zone.tsx';
import { FormAlert } from '#web/components/field.tsx';
import { describeStartingPrice, getSeedFileRules, gnwStartPath, mergeSeedFiles } from '#web/features/gnw/entry.ts';
import { saveSeedFiles } from '#web/features/gnw/seed-store.ts';
import type { GnwLane } from '#shared/gnw.ts';
import { formatSize } from '#web/lib/format-size.ts';

/**
 * Notarize Now's public landing (SPEC: the guest flow screen): what it is and what it takes, the
 * price it starts from when prices are set, the PDFs chosen right here (kept in this browser until
 * the job exists), then the gate (/notarize) with the lane chosen.
 */
export default function NotarizeNowPage() {
  const navigate = useNavigate();
  const config = useQuery(publicConfigQueryOptions());
  // One acknowledgment, one signer: the least a notarization costs here. No price list, no figure.
  const estimate = useQuery({
    queryKey: [...gnwKeys.all, 'estimate', 'landing'],
    queryFn: () => gnwApi.estimate({ act: 'acknowledgment', signers: 1, documents: 1 }),
    retry: false,
    staleTime: 5 * 60_000,
  });
  const startingPrice = describeStartingPrice(estimate.data);
  const [files, setFiles] = useState<File[]>([]);
  const [fileNote, setFileNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [isKeepFailed, setIsKeepFailed] = useState(false);
  const [isLeaving, setIsLeaving] = useState(false);

  const addFiles = (added: File[]) => {
    const merged = mergeSeedFiles(files, added);
    setFiles(merged.files);
    setFileNote(merged.refusal);
    setError(null);
    setIsKeepFailed(false);
  };

  const go = async (lane: GnwLane) => {
    setError(null);
    if (files.length > 0 && !isKeepFailed) {
      setIsLeaving(true);
      try {
        await saveSeedFiles(files);
      } catch {
        setIsLeaving(false);
        setIsKeepFailed(true);
        setError('This browser could not keep your PDFs (private browsing can prevent it). Choose a button again to continue, and add them in the next step.');
        return;
      }
    }
    navigate(`/notarize?lane=${lane}`);
  };

  return (
    <div className="gnw-landing">
      <header className="gnw-landing-hero">
        <p className="brand">Open RON</p>
        <h1 id="notarize-now-title">Notarize Now</h1>
        <p className="lead">
          Meet a commissioned notary on live video in minutes, from your computer or phone. Your document is notarized online, legally valid: the notary checks
          your identity and the whole session is recorded, as remote online notarization laws require.
        </p>
        {startingPrice ? (
          <p className="gnw-price">
            <strong>{startingPrice}</strong> for one acknowledgment with one signer. You see the full price before you pay.
          </p>
        ) : null}
      </header>
      <main className="gnw-landing-body" aria-labelledby="notarize-now-title">
        <section className="stack" aria-labelledby="needs-title">
          <h2 id="needs-title">What you need</h2>
          <ul className="gnw-needs">
            <li>
              <strong>Your document as a PDF</strong>
              Unsigned: you sign it with the notary watching.
            </li>
            <li>
              <strong>A government photo ID</strong>A driver’s license, state ID or passport that has not expired.
            </li>
            <li>
              <strong>A camera and microphone</strong>
              On your computer or phone, in a quiet, well-lit place.
            </li>
          </ul>
        </section>
        <section className="card stack" aria-labelledby="documents-title">
          <h2 id="documents-title">Your documents</h2>
          <DropZone
            label="Your PDF documents"
            buttonLabel="Choose PDFs"
            rules={getSeedFileRules(config.data?.documentMaxBytes ?? null)}
            disabled={isLeaving}
            onFiles={addFiles}
            hint="They stay in this browser until your notarization is set up. You can also add them in the next step."
            error={fileNote}
          />
          {files.length > 0 ? (
            <ul className="gnw-files" aria-label="Chosen documents">
              {files.map((file) => (
                <li key={file.name}>
                  <span>
                    {file.name} <span className="muted">({formatSize(file.size)})</span>
                  </span>
                  <button
                    type="button"
                    className="button link"
                    aria-label={`Remove ${file.name}`}
                    onClick={() => setFiles((kept) => kept.filter((candidate) => candidate !== file))}
                  >
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
        </section>
        <FormAlert message={error} />
        <div className="gnw-actions">
          <button type="button" className="button primary" disabled={isLeaving} onClick={() => void go('instant')}>
            Get notarized now
          </button>
          <button type="button" className="button" disabled={isLeaving} onClick={() => void go('scheduled')}>
            Schedule for later
          </button>
        </div>
        <p className="muted">
          Already have an account? <Link to={`/login?next=${encodeURIComponent(gnwStartPath)}`}>Sign in</Link>. Want to check a notarized document?{' '}
          <Link to="/verify">Verify it</Link>.
        </p>
        <footer className="page-footer">
          <PageChatOpener />
        </footer>
      </main>
    </div>
  );
}
