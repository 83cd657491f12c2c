import '#web/features/archive-verify/archive-verify.css';
import { Link } from 'react-router';
import { formatBytes } from '#shared/archive-verify/index.ts';
import { DropZone } from '#web/components/drop-zone.tsx';
import type { FileRules } from '#web/components/drop-zone-rules.ts';
import { FormAlert } from '#web/components/field.tsx';
import { ArchiveReportView } from '#web/features/archive-verify/archive-report.tsx';
import { useArchiveCheck } from '#web/features/archive-verify/use-archive-check.ts';
import { paths } from '#web/paths.ts';

const archiveRules: FileRules = {
  mimeTypes: ['application/zip', 'application/x-zip-compressed'],
  extensions: ['.zip'],
  kind: 'a ZIP archive',
  kindPlural: 'ZIP archives',
  maxBytes: null,
  isMultiple: false,
};

/**
 * Public and offline: checks a notary's exported archive in the browser (the same checks as
 * `npx open-ron-verify`). Once the page has loaded it needs no network, and the file never leaves
 * the computer.
 */
export default function VerifyArchivePage() {
  const { check, start } = useArchiveCheck();
  return (
    <main className="centered-page">
      <section className="card wide stack" aria-labelledby="verify-archive-title">
        <h1 id="verify-archive-title">Check a notary archive</h1>
        <p>
          Choose the archive a notary exported (a .zip file). This page checks it here, in your browser: the file is not uploaded and nothing is sent anywhere,
          so it works without a network once the page is open. It checks the signed list of files, every file’s fingerprint, every signature on the notarized
          PDFs with their timestamps and revocation data, every audit trail and every recording segment.
        </p>
        <DropZone label="Archive to check" buttonLabel="Choose an archive" rules={archiveRules} onFiles={([file]) => file && void start(file)}>
          {check.state === 'checking' ? (
            <div className="stack" role="status">
              <progress max={Math.max(1, check.totalBytes)} value={check.bytesRead} aria-label={`Checking ${check.fileName}`} />
              <p>
                Checking {check.fileName}: {formatBytes(check.bytesRead)} of {formatBytes(check.totalBytes)} read.
              </p>
            </div>
          ) : null}
        </DropZone>
        {check.state === 'failed' ? <FormAlert message={check.message} /> : null}
        {check.state === 'done' ? <ArchiveReportView fileName={check.fileName} report={check.report} /> : null}
        <p className="muted">
          Your IT staff can run the same check without a browser, with the command <code>npx open-ron-verify archive.zip</code> from a copy of Open RON. To
          check a single PDF against this platform’s records instead, use <Link to={paths.verify}>Verify a notarized document</Link>.
        </p>
        <Link to={paths.login}>Open RON home</Link>
      </section>
    </main>
  );
}
