import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { verificationSchema, type Verification } from '#shared/fields.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';

/** Public: check that a PDF is one this platform notarized, unchanged. Shows no signer data. */
export default function VerifyPage() {
  const [result, setResult] = useState<Verification | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [documentId, setDocumentId] = useState('');

  const check = async (action: () => Promise<Verification>) => {
    setError(null);
    setResult(null);
    try {
      setResult(await action());
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'The check failed. Please try again.');
    } finally {
      setProgress(null);
    }
  };
  const upload = (file: File) => {
    const form = new FormData();
    form.append('file', file, file.name);
    setProgress(0);
    void check(() => api.upload('/api/verify', form, setProgress, verificationSchema));
  };
  const lookUp = (event: FormEvent) => {
    event.preventDefault();
    void check(() => api.get(`/api/verify/${encodeURIComponent(documentId.trim())}`, verificationSchema));
  };

  return (
    <main className="centered-page">
      <section className="card wide stack" aria-labelledby="verify-title">
        <h1 id="verify-title">Verify a notarized document</h1>
        <p>
          Upload the PDF you received, or enter its document id. We compare its SHA-256 fingerprint with the documents this platform notarized: a
          single changed byte gives a different fingerprint. Your file is not stored.
        </p>
        <div className="field">
          <label htmlFor="verify-file">PDF to check</label>
          <input id="verify-file" type="file" accept="application/pdf,.pdf" onChange={(event) => event.target.files?.[0] && upload(event.target.files[0])} />
        </div>
        {progress !== null ? <progress max={1} value={progress} aria-label="Upload progress" /> : null}
        <form className="row wrap align-end" onSubmit={lookUp}>
          <Field label="Or a document id" value={documentId} onChange={(event) => setDocumentId(event.target.value)} />
          <button type="submit" className="button">
            Look up
          </button>
        </form>
        <FormAlert message={error} />
        {result?.isKnown ? (
          <div className="alert success" role="status">
            <p>
              <strong>Verified.</strong> This exact document was notarized on this platform and has not changed since.
            </p>
            <dl className="facts">
              <dt>Notarial act</dt>
              <dd>{result.actLabel}</dd>
              <dt>Notarized</dt>
              <dd>{result.notarizedAt ? new Date(result.notarizedAt).toLocaleString() : ''}</dd>
              <dt>Notary</dt>
              <dd>{result.notaryName}</dd>
              <dt>Commission</dt>
              <dd>
                {result.commissionState} {result.commissionNumber}, expires {result.commissionExpiresOn}
              </dd>
              <dt>Document id</dt>
              <dd>
                <code>{result.notarizedDocumentId}</code>
              </dd>
            </dl>
          </div>
        ) : null}
        {result && !result.isKnown ? (
          <div className="alert error" role="alert">
            <strong>Not verified.</strong> No document notarized here has this fingerprint: it was changed after notarization, or it was not notarized on
            this platform.
          </div>
        ) : null}
        <p className="muted">
          Each notarized PDF also carries the notary’s digital signature. To check it in a PDF reader, trust{' '}
          <a href="/api/verify/platform-ca.pem">the platform certificate authority</a> that issues notaries’ certificates.
        </p>
        <Link to="/login">Open RON home</Link>
      </section>
    </main>
  );
}
