import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { mailboxPageSchema, type MailboxMessage } from '#shared/mail.ts';
import { formatDateTime } from '#shared/dates.ts';
import { FormAlert } from '#web/components/field.tsx';
import { api } from '#web/lib/api.ts';
import { mailKeys } from './api/mail-queries.ts';

const pageSize = 20;
const linkPattern = /(https?:\/\/[^\s<>"]+)/g;

/** The body as text, its web links made clickable (only http and https ever become links). */
function renderBody(text: string): ReactNode[] {
  return text.split(linkPattern).map((part, index) =>
    index % 2 === 1 ? (
      <a key={index} href={part} target="_blank" rel="noopener noreferrer">
        {part}
      </a>
    ) : (
      part
    ),
  );
}

/** What kind of file it is, in words: a calendar invitation, or its type. */
function describeAttachmentType(contentType: string): string {
  return contentType.startsWith('text/calendar') ? 'calendar invitation' : (contentType.split(';')[0] ?? contentType);
}

function formatSize(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${Math.round(bytes / 1024)} KB`;
}

function MailItem({ message }: { message: MailboxMessage }) {
  const headingId = `mail-${message.id}`;
  return (
    <li>
      <article className="mail-message" aria-labelledby={headingId}>
        <h3 id={headingId}>{message.subject}</h3>
        <dl className="mail-meta">
          <dt>To</dt>
          <dd>{message.to}</dd>
          <dt>Received</dt>
          <dd>
            <time dateTime={message.deliveredAt}>{formatDateTime(message.deliveredAt)}</time>
          </dd>
        </dl>
        <div className="mail-body">{renderBody(message.text)}</div>
        {message.attachments.length > 0 ? (
          <ul className="mail-attachments" aria-label="Attachments">
            {message.attachments.map((file) => (
              <li key={file.index}>
                <a href={`/api/admin/mail/${message.id}/attachments/${file.index}`} download={file.filename}>
                  {file.filename}
                </a>{' '}
                <span className="muted">
                  ({describeAttachmentType(file.contentType)}, {formatSize(file.size)})
                </span>
              </li>
            ))}
          </ul>
        ) : null}
      </article>
    </li>
  );
}

/**
 * The local mailbox: without SMTP_URL every email lands here, newest first. Administrators only;
 * the server records each read in the audit trail.
 */
export function Mailbox() {
  const [page, setPage] = useState(1);
  const mail = useQuery({
    queryKey: mailKeys.page(page),
    queryFn: () => api.get(`/api/admin/mail?page=${page}&pageSize=${pageSize}`, mailboxPageSchema),
    placeholderData: (previous) => previous,
    retry: false,
  });
  const total = mail.data?.total ?? 0;
  const pageCount = Math.max(1, Math.ceil(total / pageSize));
  return (
    <section className="card stack" aria-labelledby="mailbox-title">
      <div className="row between wrap">
        <h2 id="mailbox-title">Local mailbox</h2>
        <button type="button" className="button" onClick={() => void mail.refetch()} disabled={mail.isFetching}>
          Refresh
        </button>
      </div>
      <p className="muted">
        Without an SMTP relay (SMTP_URL), the emails Open RON sends wait here: sign-in codes, password reset links and invitations. Pass them on only to the
        person they were written for. Each visit to this page is recorded in the audit trail.
      </p>
      <FormAlert message={mail.error?.message ?? null} />
      {mail.isPending ? <p role="status">Loading mail…</p> : null}
      {mail.data && !mail.data.isLocalMailbox ? <p className="notice">Mail is sent through the SMTP relay set in SMTP_URL, so none is kept here.</p> : null}
      {mail.data && mail.data.isLocalMailbox && mail.data.items.length === 0 ? <p className="empty">No mail is waiting.</p> : null}
      {mail.data && mail.data.items.length > 0 ? (
        <>
          <ul className="mail-list">
            {mail.data.items.map((message) => (
              <MailItem key={message.id} message={message} />
            ))}
          </ul>
          <nav className="row between wrap" aria-label="Pages">
            <button type="button" className="button" disabled={page <= 1} onClick={() => setPage((value) => value - 1)}>
              Newer
            </button>
            <span>
              Page {page} of {pageCount} · {total} message{total === 1 ? '' : 's'}
            </span>
            <button type="button" className="button" disabled={page >= pageCount} onClick={() => setPage((value) => value + 1)}>
              Older
            </button>
          </nav>
        </>
      ) : null}
    </section>
  );
}
