import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { getNotNotarialNotice, verificationSchema, type Verification } from '#shared/fields.ts';
import { formatCalendarDay, formatDateTime } from '#shared/dates.ts';
import { getUsStateName } from '#shared/us-states.ts';
import { publicConfigQueryOptions } from '#web/api/system.ts';
import { fetchPlatformCaFingerprint, verificationKeys } from '#web/api/verification.ts';
import { DropZone } from '#web/components/drop-zone.tsx';
import type { FileRules } from '#web/components/drop-zone-rules.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';

const pdfToCheckRules: FileRules = {
  mimeTypes: ['application/pdf'],
  extensions: ['.pdf'],
  kind: 'a PDF',
  kindPlural: 'PDFs',
  maxBytes: null,
  isMultiple: false,
};

/**
 * Public: check a PDF against what this platform issued. Only an uploaded file can be found
 * unchanged; an id (the address printed on each certificate page is /verify?id=…) tells what was
 * issued under it, with the SHA-256 to compare a copy with. Shows no signer data.
 */
export default function VerifyPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const idFromAddress = searchParams.get('id')?.trim() ?? '';
  const [fileResult, setFileResult] = useState<Verification | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [documentId, setDocumentId] = useState(idFromAddress);
  const config = useQuery(publicConfigQueryOptions());
  // The looked-up id lives in the address, so the link printed on a certificate page opens its answer.
  const byId = useQuery({
    queryKey: verificationKeys.byId(idFromAddress),
    queryFn: () => api.get(`/api/verify/${encodeURIComponent(idFromAddress)}`, verificationSchema),
    enabled: idFromAddress !== '',
    retry: false,
  });

  const upload = async (file: File) => {
    const form = new FormData();
    form.append('file', file, file.name);
    setSearchParams({});
    setFileError(null);
    setFileResult(null);
    setProgress(0);
    try {
      setFileResult(await api.upload('/api/verify', form, setProgress, verificationSchema));
    } catch (caught) {
      setFileError(caught instanceof ApiError ? caught.message : 'The check failed. Please try again.');
    } finally {
      setProgress(null);
    }
  };
  const lookUp = (event: FormEvent) => {
    event.preventDefault();
    setFileResult(null);
    setFileError(null);
    setSearchParams(documentId.trim() ? { id: documentId.trim() } : {});
  };
  const result = fileResult ?? (idFromAddress ? byId.data : null) ?? null;
  const error = fileError ?? (idFromAddress && byId.error ? byId.error.message : null);

  return (
    <main className="centered-page">
      <section className="card wide stack" aria-labelledby="verify-title">
        <h1 id="verify-title">Verify a notarized document</h1>
        <p>
          Upload the PDF you received to check that it is unchanged: we compare its SHA-256 fingerprint with the documents this platform issued, and a single
          changed byte gives a different fingerprint. Your file is not stored. A document id only shows what was issued under it.
        </p>
        <DropZone
          label="PDF to check"
          buttonLabel="Choose a PDF"
          rules={{ ...pdfToCheckRules, maxBytes: config.data?.documentMaxBytes ?? null }}
          disabled={progress !== null}
          onFiles={([file]) => file && void upload(file)}
        >
          {progress !== null ? <progress max={1} value={progress} aria-label="Upload progress" /> : null}
        </DropZone>
        <form className="row wrap align-end" onSubmit={lookUp}>
          <Field label="Or a document id" value={documentId} onChange={(event) => setDocumentId(event.target.value)} />
          <button type="submit" className="button">
            Look up
          </button>
        </form>
        <FormAlert message={error} />
        {byId.isFetching && !fileResult ? <p role="status">Looking up the document…</p> : null}
        {result ? <VerificationResult result={result} /> : null}
        <p className="muted">
          Each notarized PDF also carries the notary’s digital signature. To check it in a PDF reader, trust{' '}
          <a href="/api/verify/platform-ca.pem">the platform certificate authority</a> that issues notaries’ certificates.
        </p>
        <PlatformCaFingerprint />
        <p className="muted">
          A notary’s whole archive (every document, audit trail and recording, exported as a .zip) is checked on{' '}
          <Link to="/verify-archive">Check a notary archive</Link>, in your browser, without uploading it.
        </p>
        <Link to="/login">Open RON home</Link>
      </section>
    </main>
  );
}

/**
 * The platform CA's SHA-256 fingerprint, as the archive checker prints the one inside an archive:
 * the two must match.
 */
function PlatformCaFingerprint() {
  const { data: fingerprint } = useQuery({ queryKey: verificationKeys.platformCaFingerprint(), queryFn: fetchPlatformCaFingerprint, staleTime: Infinity });
  if (!fingerprint) return null;
  return (
    <p className="muted">
      This platform’s certificate authority has the SHA-256 fingerprint <code className="fingerprint">{fingerprint}</code>. A notary archive made here names the
      same one.
    </p>
  );
}

function VerificationResult({ result }: { result: Verification }) {
  if (!result.isKnown) {
    return (
      <div className="alert error" role="alert">
        <strong>Not verified.</strong> No document issued here has this fingerprint: it was changed after it was issued, or it was not issued on this platform.
      </div>
    );
  }
  const notice = getNotNotarialNotice(result);
  const isFileChecked = result.checkedBy === 'file';
  return (
    <div className={`alert ${isFileChecked ? 'success' : 'info'}`} role="status">
      {isFileChecked ? (
        <p>
          <strong>Verified.</strong> This exact file was {result.isNotarialAct ? 'notarized' : 'issued'} by this platform and has not changed since.
        </p>
      ) : (
        <p>
          <strong>Issued by this platform under this id.</strong> No file was checked: this is what was issued. To check your copy, upload it above, or compare
          its SHA-256 fingerprint with the one below.
        </p>
      )}
      {result.newerCopy ? (
        <p>
          A newer copy of this document exists: on {formatDateTime(result.newerCopy.replacedAt)} its archive timestamp was renewed, which adds fresh long-term
          proof to the same signature. Your copy is still genuine; ask whoever sent it for the newer copy if you keep it for years.
        </p>
      ) : null}
      {notice ? (
        <div className="alert error">
          <p>
            <strong>{notice}</strong>
          </p>
          <ul>
            {result.notNotarialReasons.map((reason) => (
              <li key={reason}>{reason}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <dl className="facts">
        <dt>{result.isNotarialAct ? 'Notarial act' : 'Requested act'}</dt>
        <dd>{result.actLabel}</dd>
        <dt>{result.isNotarialAct ? 'Notarized' : 'Issued'}</dt>
        <dd>{result.notarizedAt ? formatDateTime(result.notarizedAt) : ''}</dd>
        <dt>Notary</dt>
        <dd>{result.notaryName}</dd>
        <dt>Commission</dt>
        <dd>
          {result.commissionState ? getUsStateName(result.commissionState) : ''} {result.commissionNumber}, expires{' '}
          {result.commissionExpiresOn ? formatCalendarDay(result.commissionExpiresOn) : ''}
        </dd>
        <dt>SHA-256</dt>
        <dd>
          <code>{result.sha256}</code>
        </dd>
        <dt>Document id</dt>
        <dd>
          <code>{result.notarizedDocumentId}</code>
        </dd>
      </dl>
    </div>
  );
}
