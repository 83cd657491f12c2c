import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { MailTemplatePreview } from '#shared/mail.ts';
import { FormAlert } from '#web/components/field.tsx';
import { mailTemplatesQueryOptions } from './api/mail-queries.ts';

function TemplatePreview({ template }: { template: MailTemplatePreview }) {
  const [isOpen, setIsOpen] = useState(false);
  const headingId = `template-${template.name}`;
  const previewId = `template-${template.name}-preview`;
  return (
    <li>
      <article className="mail-message" aria-labelledby={headingId}>
        <h3 id={headingId}>{template.title}</h3>
        <p className="template-purpose">{template.purpose}</p>
        <button type="button" className="button" aria-expanded={isOpen} aria-controls={previewId} onClick={() => setIsOpen((value) => !value)}>
          {isOpen ? 'Hide preview' : 'Show preview'}
        </button>
        {isOpen ? (
          <div id={previewId} className="template-preview stack">
            <dl className="mail-meta">
              <dt>Subject</dt>
              <dd>{template.subject}</dd>
            </dl>
            <h4>Text</h4>
            <div className="mail-body">{template.text}</div>
            <h4>HTML</h4>
            {/* sandbox="" gives the email no script, no forms and no way to reach this page; srcdoc keeps it off the network. */}
            <iframe className="template-frame" title={`HTML of “${template.title}”`} sandbox="" srcDoc={template.html} />
          </div>
        ) : null}
      </article>
    </li>
  );
}

/**
 * Every email Open RON sends, rendered with sample facts: its subject, its text part and its HTML
 * part, the HTML shown in a sandboxed frame. Administrators only.
 */
export function TemplatePreviews() {
  const templates = useQuery(mailTemplatesQueryOptions());
  return (
    <section className="card stack" aria-labelledby="templates-title">
      <h2 id="templates-title">Email templates</h2>
      <p className="muted">
        Each email Open RON sends, with sample names and links. People receive the text and the HTML together; their mail program shows one of them.
      </p>
      <FormAlert message={templates.error?.message ?? null} />
      {templates.isPending ? <p role="status">Loading templates…</p> : null}
      {templates.data ? (
        <ul className="mail-list">
          {templates.data.templates.map((template) => (
            <TemplatePreview key={template.name} template={template} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}
