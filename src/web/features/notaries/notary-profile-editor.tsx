import { useId, useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { okMessageSchema } from '#shared/auth.ts';
import { formatCalendarDay } from '#shared/dates.ts';
import {
  maxNotaryFileBytes,
  notaryFileKindLabels,
  notaryFileKinds,
  notaryProfileFileSchema,
  notaryProfileSchema,
  type NotaryFileKind,
  type NotaryProfile,
} from '#shared/notary-profile.ts';
import type { UsStateCode } from '#shared/us-states.ts';
import { useConfirmDialog } from '#web/components/confirm-dialog.tsx';
import { DropZone } from '#web/components/drop-zone.tsx';
import { Field, FormAlert } from '#web/components/field.tsx';
import { StateSelect } from '#web/components/state-select.tsx';
import { api } from '#web/lib/api.ts';
import { formatSize } from '#web/lib/format-size.ts';

/** Whole cents as the dollars a person types: 1000000 -> "10000.00". */
function toDollars(cents: number | null): string {
  return cents === null ? '' : (cents / 100).toFixed(2);
}

/** What was typed as dollars, as whole cents; null for empty, NaN for nonsense (the server says why). */
function toCents(text: string): number | null {
  const trimmed = text.replace(/[$,\s]/g, '');
  if (!trimmed) return null;
  if (!/^\d+(\.\d{1,2})?$/.test(trimmed)) return Number.NaN;
  return Math.round(Number(trimmed) * 100);
}

interface ProfileForm {
  commissionedName: string;
  commissionNumber: string;
  commissionState: string;
  county: string;
  commissionStartsOn: string;
  commissionExpiresOn: string;
  bondAmount: string;
  bondExpiresOn: string;
  eoAmount: string;
  eoExpiresOn: string;
  timeZone: string;
}

/** Every IANA zone this browser knows, for the time zone field's suggestions. */
const knownTimeZones: readonly string[] = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];

function toForm(profile: NotaryProfile): ProfileForm {
  return {
    commissionedName: profile.commissionedName ?? '',
    commissionNumber: profile.commissionNumber,
    commissionState: profile.commissionState,
    county: profile.county,
    commissionStartsOn: profile.commissionStartsOn ?? '',
    commissionExpiresOn: profile.commissionExpiresOn,
    bondAmount: toDollars(profile.bondAmountCents),
    bondExpiresOn: profile.bondExpiresOn ?? '',
    eoAmount: toDollars(profile.eoAmountCents),
    eoExpiresOn: profile.eoExpiresOn ?? '',
    timeZone: profile.timeZone ?? '',
  };
}

const imageRules = {
  mimeTypes: ['image/png', 'image/jpeg'],
  extensions: ['.png', '.jpg', '.jpeg'],
  kind: 'a PNG or JPEG image',
  kindPlural: 'PNG or JPEG images',
  maxBytes: maxNotaryFileBytes,
  isMultiple: false,
};
const documentRules = {
  mimeTypes: ['application/pdf', 'image/png', 'image/jpeg'],
  extensions: ['.pdf', '.png', '.jpg', '.jpeg'],
  kind: 'a PDF, PNG or JPEG file',
  kindPlural: 'PDF, PNG or JPEG files',
  maxBytes: maxNotaryFileBytes,
  isMultiple: false,
};

export interface NotaryProfileEditorProps {
  profile: NotaryProfile;
  /** '/api/notary/profile' for the notary, '/api/notary/profile/{id}' for an administrator. */
  profilePath: string;
  uploadPath: string;
  /** Whether the viewer is the notary (their words) or an administrator. */
  isOwn: boolean;
  queryKey: readonly unknown[];
}

/** The commission profile form, the missing list, the expiry banners and the documents, for the notary or an administrator. */
export function NotaryProfileEditor({ profile, profilePath, uploadPath, isOwn, queryKey }: NotaryProfileEditorProps) {
  const queryClient = useQueryClient();
  const { dialog, ask } = useConfirmDialog();
  const [form, setForm] = useState<ProfileForm>(() => toForm(profile));
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [isSaving, setIsSaving] = useState(false);
  const [kind, setKind] = useState<NotaryFileKind>('commission_certificate');
  // Ids of its own: an administrator may have two profiles open (a pending one and one from the directory).
  const idBase = useId();
  const [progress, setProgress] = useState<number | null>(null);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const set = (key: keyof ProfileForm) => (event: { target: { value: string } }) => setForm((current) => ({ ...current, [key]: event.target.value }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKey as unknown[] });

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setNotice(null);
    const bondAmountCents = toCents(form.bondAmount);
    const eoAmountCents = toCents(form.eoAmount);
    if (Number.isNaN(bondAmountCents) || Number.isNaN(eoAmountCents)) {
      setError('Write amounts in dollars, like 10000 or 10,000.00.');
      return;
    }
    setIsSaving(true);
    try {
      const saved = await api.put(
        profilePath,
        {
          commissionedName: form.commissionedName.trim() || null,
          commissionNumber: form.commissionNumber,
          commissionState: form.commissionState,
          county: form.county,
          commissionStartsOn: form.commissionStartsOn || null,
          commissionExpiresOn: form.commissionExpiresOn,
          bondAmountCents,
          bondExpiresOn: form.bondExpiresOn || null,
          eoAmountCents,
          eoExpiresOn: form.eoExpiresOn || null,
          timeZone: form.timeZone.trim() || null,
        },
        notaryProfileSchema,
      );
      queryClient.setQueryData(queryKey as unknown[], saved);
      setForm(toForm(saved));
      setNotice(
        saved.approvalStatus === 'pending' && profile.approvalStatus === 'approved'
          ? 'Saved. The new commission needs an administrator’s approval again.'
          : 'Saved.',
      );
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : 'The profile was not saved.');
    } finally {
      setIsSaving(false);
    }
  };

  const uploadFile = async (file: File) => {
    setUploadError(null);
    setProgress(0);
    const data = new FormData();
    data.append('kind', kind);
    data.append('file', file);
    try {
      await api.upload(uploadPath, data, setProgress, notaryProfileFileSchema);
      await refresh();
    } catch (caught) {
      setUploadError(caught instanceof Error ? caught.message : 'The file was not uploaded.');
    } finally {
      setProgress(null);
    }
  };

  const deleteFile = async (url: string, fileName: string) => {
    const answer = await ask({
      title: `Delete ${fileName}?`,
      description: 'The file is removed for good; upload it again if it was needed.',
      confirmLabel: 'Delete',
      confirmTone: 'danger',
      cancelLabel: 'Keep it',
    });
    if (answer === null) return;
    setUploadError(null);
    try {
      await api.delete(url, okMessageSchema);
      await refresh();
    } catch (caught) {
      setUploadError(caught instanceof Error ? caught.message : 'The file was not deleted.');
    }
  };

  const who = isOwn ? 'your' : 'the';
  return (
    <div className="stack notary-profile">
      {dialog}
      {profile.warnings.map((warning) => (
        <div
          key={`${warning.item}-${warning.expiresOn}`}
          className={warning.isExpired ? 'alert error' : 'alert info'}
          role={warning.isExpired ? 'alert' : 'status'}
        >
          {isOwn ? warning.message : warning.message.replace(/^Your /, 'The ')}
        </div>
      ))}
      {profile.workBlocker ? <FormAlert message={profile.workBlocker} tone="info" /> : null}

      {profile.approvalStatus === 'approved' ? (
        // Approval is behind an approved notary: only what they still need to seal, if anything.
        profile.missing.length > 0 ? (
          <section aria-labelledby={`${idBase}-missing`} className="card stack">
            <h3 id={`${idBase}-missing`}>Needed before sealing</h3>
            <ul className="missing-list">
              {profile.missing.map((item) => (
                <li key={item}>{item}</li>
              ))}
            </ul>
          </section>
        ) : null
      ) : (
        <section aria-labelledby={`${idBase}-missing`} className="card stack">
          <h3 id={`${idBase}-missing`}>Before approval</h3>
          {profile.missing.length === 0 ? (
            <p>The profile is complete.</p>
          ) : (
            <>
              <p>An administrator can approve {who} profile once these are done:</p>
              <ul className="missing-list">
                {profile.missing.map((item) => (
                  <li key={item}>{item}</li>
                ))}
              </ul>
            </>
          )}
        </section>
      )}

      <form className="card stack" onSubmit={(event) => void save(event)} aria-labelledby={`${idBase}-commission`} noValidate>
        <h3 id={`${idBase}-commission`}>Commission</h3>
        <Field
          label="Name as commissioned"
          value={form.commissionedName}
          onChange={set('commissionedName')}
          autoComplete="name"
          hint="Exactly as on the commission certificate."
        />
        <Field label="Commission number" value={form.commissionNumber} onChange={set('commissionNumber')} />
        <StateSelect
          label="Commissioning state"
          value={form.commissionState}
          onChange={(code: UsStateCode | '') => setForm((current) => ({ ...current, commissionState: code }))}
        />
        <Field label="County" value={form.county} onChange={set('county')} />
        <div className="field-row">
          <Field label="Commission start" type="date" value={form.commissionStartsOn} onChange={set('commissionStartsOn')} />
          <Field label="Commission expiry" type="date" value={form.commissionExpiresOn} onChange={set('commissionExpiresOn')} />
        </div>
        <Field
          label="Time zone"
          value={form.timeZone}
          onChange={set('timeZone')}
          list={`${idBase}-zones`}
          placeholder={Intl.DateTimeFormat().resolvedOptions().timeZone}
          hint="Such as America/Chicago. Availability sent without a zone, and the dates in your journal, use it."
        />
        <datalist id={`${idBase}-zones`}>
          {knownTimeZones.map((zone) => (
            <option key={zone} value={zone} />
          ))}
        </datalist>
        <h3>Surety bond</h3>
        <div className="field-row">
          <Field label="Bond amount (USD)" inputMode="decimal" value={form.bondAmount} onChange={set('bondAmount')} placeholder="10000.00" />
          <Field label="Bond expiry" type="date" value={form.bondExpiresOn} onChange={set('bondExpiresOn')} />
        </div>
        <h3>Errors and omissions insurance</h3>
        <div className="field-row">
          <Field label="E&O coverage (USD)" inputMode="decimal" value={form.eoAmount} onChange={set('eoAmount')} placeholder="25000.00" />
          <Field label="E&O expiry" type="date" value={form.eoExpiresOn} onChange={set('eoExpiresOn')} />
        </div>
        <FormAlert message={error} />
        <FormAlert message={notice} tone="success" />
        <div className="actions">
          <button type="submit" className="button primary" disabled={isSaving}>
            {isSaving ? 'Saving…' : 'Save profile'}
          </button>
        </div>
      </form>

      <section aria-labelledby={`${idBase}-files`} className="card stack">
        <h3 id={`${idBase}-files`}>Documents and seal</h3>
        {profile.files.length === 0 ? <p className="empty">No documents are uploaded yet.</p> : null}
        {profile.files.length > 0 ? (
          <ul className="review-list">
            {profile.files.map((file) => (
              <li key={file.id} className="review-item">
                <strong>{notaryFileKindLabels[file.kind]}</strong>: <a href={file.url}>{file.fileName}</a>{' '}
                <span className="muted">({formatSize(file.sizeBytes)})</span>{' '}
                <button type="button" className="button" onClick={() => void deleteFile(file.url, file.fileName)}>
                  Delete<span className="visually-hidden"> {file.fileName}</span>
                </button>
              </li>
            ))}
          </ul>
        ) : null}
        <div className="field">
          <label htmlFor={`${idBase}-kind`}>Document to upload</label>
          <select id={`${idBase}-kind`} value={kind} onChange={(event) => setKind(event.target.value as NotaryFileKind)}>
            {notaryFileKinds.map((value) => (
              <option key={value} value={value}>
                {notaryFileKindLabels[value]}
              </option>
            ))}
          </select>
        </div>
        <DropZone
          label={`Upload the ${notaryFileKindLabels[kind].toLowerCase()}`}
          buttonLabel="Choose a file"
          rules={kind === 'seal_image' ? imageRules : documentRules}
          disabled={progress !== null}
          error={uploadError}
          hint="Only you and the platform’s administrators can see it."
          onFiles={(files) => {
            const [file] = files;
            if (file) void uploadFile(file);
          }}
        >
          {progress !== null ? (
            <div className="stack">
              <progress max={1} value={progress} aria-label="Upload progress" />
              <span role="status">{progress < 1 ? `Uploading… ${Math.round(progress * 100)}%` : 'Checking the file…'}</span>
            </div>
          ) : null}
        </DropZone>
      </section>

      <section aria-labelledby={`${idBase}-signing`} className="card stack">
        <h3 id={`${idBase}-signing`}>Signature, initials and certificate</h3>
        <dl className="review-facts">
          <dt>Signature</dt>
          <dd>{profile.signature ? <img src={profile.signature.imageUrl} alt="Saved signature" className="profile-signature" /> : 'Not saved'}</dd>
          <dt>Initials</dt>
          <dd>{profile.initials ? <img src={profile.initials.imageUrl} alt="Saved initials" className="profile-signature" /> : 'Not saved'}</dd>
          <dt>Signing certificate</dt>
          <dd>
            {profile.certificate.source === null
              ? 'Issued by the platform at the first seal'
              : `${profile.certificate.source === 'uploaded' ? 'Uploaded' : 'Platform'} certificate, valid until ${formatCalendarDay((profile.certificate.notAfter ?? '').slice(0, 10))}`}
          </dd>
        </dl>
        {isOwn ? (
          <p>
            <Link to="/signature?next=%2Fdashboard%3Ftab%3Dprofile">{profile.signature ? 'Change' : 'Save'} your signature</Link> ·{' '}
            <Link to="/initials?next=%2Fdashboard%3Ftab%3Dprofile">{profile.initials ? 'Change' : 'Save'} your initials</Link> ·{' '}
            <Link to="/dashboard?tab=security">Manage your signing certificate</Link>
          </p>
        ) : null}
      </section>
    </div>
  );
}
