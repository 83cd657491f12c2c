import { describe, expect, it } from 'vitest';
import { auditActions, type AuditAction } from './audit.ts';
import { auditSentences, describeAuditEvent } from './audit-sentences.ts';

const nora = { actorName: 'Nora Notary', actorId: 'u-nora' };
const sam = { actorName: 'Sam Signer', actorId: 'u-sam' };
const tess = { actorName: 'Tess Title', actorId: 'u-tess' };

describe('the audit sentence table', () => {
  it('has exactly one sentence for each action', () => {
    expect(Object.keys(auditSentences).sort()).toEqual([...auditActions].sort());
  });

  it.each(auditActions.map((action) => [action]))('writes %s as a sentence even when the event recorded no details', (action: AuditAction) => {
    const sentence = describeAuditEvent({ action, ...nora, data: {} });
    expect(sentence).toMatch(/^[A-Z].*\.$/);
    expect(sentence).not.toMatch(/undefined|null|NaN|\[object|_/);
    expect(sentence).not.toContain(action);
  });
});

describe('describeAuditEvent', () => {
  it('writes the live session’s lobby and its start and end as sentences', () => {
    expect(describeAuditEvent({ action: 'video.joined', ...sam, data: { role: 'signer', lobbyState: 'waiting' } })).toBe(
      'Sam Signer entered the lobby of the live session as a signer, agreeing to be recorded, and waited to be admitted.',
    );
    expect(describeAuditEvent({ action: 'video.joined', ...nora, data: { role: 'notary', lobbyState: 'admitted' } })).toBe(
      'Nora Notary entered the live session as the notary, agreeing to be recorded.',
    );
    expect(describeAuditEvent({ action: 'video.admitted', ...nora, data: { name: 'Sam Signer' } })).toBe(
      'Nora Notary admitted Sam Signer to the live session.',
    );
    expect(describeAuditEvent({ action: 'video.denied', ...nora, data: { name: 'Sam Signer' } })).toBe(
      'Nora Notary did not admit Sam Signer to the live session.',
    );
    expect(describeAuditEvent({ action: 'video.started', ...nora, data: { admittedNames: ['Sam Signer', 'Will Witness'] } })).toBe(
      'Nora Notary began the notarial act in the live session with Sam Signer, Will Witness present.',
    );
    expect(describeAuditEvent({ action: 'video.finalized', ...nora, data: {} })).toBe('Nora Notary ended the live session.');
  });

  it('says who moved the job and between which statuses, in words', () => {
    expect(describeAuditEvent({ action: 'job.status_changed', ...tess, data: { from: 'draft', to: 'ready', reason: null } })).toBe(
      'Tess Title moved the job from Draft to Ready.',
    );
    expect(describeAuditEvent({ action: 'job.status_changed', ...nora, data: { from: 'ready', to: 'in_session' } })).toBe('Nora Notary started the session.');
    expect(describeAuditEvent({ action: 'job.status_changed', ...nora, data: { from: 'in_session', to: 'ready' } })).toBe('Nora Notary paused the session.');
    expect(describeAuditEvent({ action: 'job.status_changed', ...tess, data: { from: 'ready', to: 'cancelled', reason: 'The buyer withdrew.' } })).toBe(
      'Tess Title cancelled the job. Reason: The buyer withdrew.',
    );
    expect(
      describeAuditEvent({ action: 'job.status_changed', ...nora, data: { from: 'in_session', to: 'completed', reason: 'notarized and digitally signed' } }),
    ).toBe('Nora Notary completed the job. Reason: notarized and digitally signed.');
  });

  it('names the field, its page and its document when they were recorded', () => {
    const data = { documentName: 'deed.pdf', page: 3, type: 'signature', participantName: 'Sam Signer' };
    expect(describeAuditEvent({ action: 'field.filled', ...sam, data })).toBe('Sam Signer signed page 3 of deed.pdf.');
    expect(describeAuditEvent({ action: 'field.filled', ...sam, data: { ...data, type: 'initials' } })).toBe('Sam Signer initialed page 3 of deed.pdf.');
    expect(describeAuditEvent({ action: 'field.filled', ...sam, data: { ...data, type: 'date_signed' } })).toBe(
      'Sam Signer filled the date signed field on page 3 of deed.pdf.',
    );
    expect(describeAuditEvent({ action: 'field.filled', ...nora, data: { ...data, type: 'notary_seal', participantName: null } })).toBe(
      'Nora Notary applied the notary seal on page 3 of deed.pdf.',
    );
    expect(describeAuditEvent({ action: 'field.filled', ...sam, data: { ...data, isOnEveryPage: true, type: 'initials' } })).toBe(
      'Sam Signer initialed every page of deed.pdf.',
    );
    expect(describeAuditEvent({ action: 'field.placed', ...nora, data })).toBe('Nora Notary placed a signature field for Sam Signer on page 3 of deed.pdf.');
    expect(describeAuditEvent({ action: 'field.placed', ...nora, data: { ...data, type: 'initials' } })).toBe(
      'Nora Notary placed an initials field for Sam Signer on page 3 of deed.pdf.',
    );
    expect(describeAuditEvent({ action: 'field.removed', ...nora, data: { ...data, type: 'checkbox' } })).toBe(
      'Nora Notary removed a checkbox for Sam Signer from page 3 of deed.pdf.',
    );
  });

  it('leaves out what an older event did not record instead of guessing it', () => {
    // Field events recorded before the document name and page were kept.
    expect(describeAuditEvent({ action: 'field.filled', ...sam, data: { documentId: 'd1', fieldId: 'f1', type: 'signature' } })).toBe(
      'Sam Signer signed a signature field.',
    );
    expect(describeAuditEvent({ action: 'field.placed', ...nora, data: { documentId: 'd1', type: 'text', page: 2 } })).toBe(
      'Nora Notary placed a text field on page 2.',
    );
    expect(describeAuditEvent({ action: 'field.removed', ...nora, data: { documentId: 'd1', type: 'date' } })).toBe('Nora Notary removed a date field.');
    expect(describeAuditEvent({ action: 'job.notary_replaced', ...tess, data: { from: 'n1', to: 'n2' } })).toBe('Tess Title changed the job’s notary.');
    expect(describeAuditEvent({ action: 'document.completed', ...nora, data: { documentId: 'd1', sha256: 'ab' } })).toBe(
      'Nora Notary marked a document complete.',
    );
    // A bypass recorded before one needed a method says only that the step was skipped.
    const bypass = { participantId: 'p1', name: 'Sam Signer', enabled: true, reason: 'Known to me' };
    expect(describeAuditEvent({ action: 'participant.id_bypass_changed', ...nora, data: bypass })).toBe(
      'Nora Notary let Sam Signer skip identity verification. Reason: Known to me.',
    );
    expect(describeAuditEvent({ action: 'participant.id_bypass_changed', ...nora, data: { ...bypass, method: 'credible_witness' } })).toBe(
      'Nora Notary identified Sam Signer through a credible witness instead of the identity step. Reason: Known to me.',
    );
  });

  it('writes people, documents and counts from the recorded data', () => {
    expect(
      describeAuditEvent({ action: 'job.created', ...tess, data: { title: 'Refinance closing', notarizationType: 'acknowledgment', status: 'draft' } }),
    ).toBe('Tess Title created the job “Refinance closing” (Acknowledgment).');
    expect(describeAuditEvent({ action: 'participant.added', ...tess, data: { name: 'Sam Signer', email: 'sam@example.test', role: 'signer' } })).toBe(
      'Tess Title invited Sam Signer as a signer.',
    );
    expect(describeAuditEvent({ action: 'participant.updated', ...tess, data: { name: 'Sam Signer', changes: { role: 'witness' } } })).toBe(
      'Tess Title changed Sam Signer’s role to witness.',
    );
    expect(describeAuditEvent({ action: 'document.uploaded', ...tess, data: { name: 'deed.pdf', pageCount: 3 } })).toBe(
      'Tess Title uploaded deed.pdf (3 pages).',
    );
    expect(describeAuditEvent({ action: 'document.updated', ...tess, data: { name: 'scan.pdf', changes: { name: 'deed.pdf', tag: 'reference' } } })).toBe(
      'Tess Title renamed scan.pdf to deed.pdf and marked deed.pdf as a reference document.',
    );
    expect(describeAuditEvent({ action: 'job.notary_replaced', ...tess, data: { from: 'n1', fromName: 'Nora Notary', to: 'n2', toName: 'Ned Notary' } })).toBe(
      'Tess Title replaced Nora Notary with Ned Notary as the job’s notary.',
    );
    expect(describeAuditEvent({ action: 'job.notary_replaced', ...tess, data: { from: null, to: 'n2', toName: 'Ned Notary' } })).toBe(
      'Tess Title assigned Ned Notary to the job.',
    );
    expect(describeAuditEvent({ action: 'participants.reminded', ...tess, data: { reminded: 2, skipped: 1 } })).toBe(
      'Tess Title emailed new invitation links to 2 participants. 1 other was left out: already joined or emailed in the last ten minutes.',
    );
    expect(describeAuditEvent({ action: 'document.notarized', ...nora, data: { documentName: 'deed.pdf', isNotarialAct: false } })).toBe(
      'Nora Notary sealed deed.pdf with the notary’s digital certificate as a record of electronic signing, not a notarial act.',
    );
    const fullSaveReason = 'The original was saved again as a whole because it has no startxref at its end.';
    expect(describeAuditEvent({ action: 'document.notarized', ...nora, data: { documentName: 'deed.pdf', isNotarialAct: true, fullSaveReason } })).toBe(
      `Nora Notary notarized deed.pdf and sealed it with the notary’s digital certificate. ${fullSaveReason}`,
    );
    expect(describeAuditEvent({ action: 'invite.claimed', actorName: null, actorId: null, data: { participantName: 'Sam Signer' } })).toBe(
      'Sam Signer accepted the invitation.',
    );
  });

  it('writes a scheduled time in the viewer’s language and time zone', () => {
    const event = { action: 'job.updated', ...tess, data: { scheduledAt: '2026-11-23T19:05:00.000Z' } };
    expect(describeAuditEvent(event, { locale: 'en-US', timeZone: 'America/New_York' })).toBe('Tess Title scheduled the job for Nov 23, 2026, 2:05 PM EST.');
    expect(describeAuditEvent(event, { locale: 'en-GB', timeZone: 'Europe/London' })).toBe('Tess Title scheduled the job for 23 Nov 2026, 19:05 GMT.');
    expect(describeAuditEvent({ action: 'job.updated', ...tess, data: { scheduledAt: null, title: 'Deed' } })).toBe(
      'Tess Title renamed the job “Deed” and cleared the scheduled time.',
    );
  });

  it('says who decided an application and why it was turned down', () => {
    const ada = { actorName: 'Ada Admin', actorId: 'u-ada' };
    expect(describeAuditEvent({ action: 'notary.approved', ...ada, data: { notaryName: 'Nora Notary' } })).toBe(
      'Ada Admin approved the notary account of Nora Notary.',
    );
    expect(describeAuditEvent({ action: 'notary.profile_created', ...ada, data: { notaryName: 'Nora Notary' } })).toBe(
      'Ada Admin put the commission of Nora Notary on file; it waits for approval.',
    );
    expect(
      describeAuditEvent({
        action: 'notary.rejected',
        ...ada,
        data: { notaryName: 'Nick Notary', reason: 'The commission number does not match the state register.' },
      }),
    ).toBe('Ada Admin turned down the notary application of Nick Notary. Reason: The commission number does not match the state register.');
    expect(describeAuditEvent({ action: 'title_company.approved', ...ada, data: { companyName: 'Lone Star Title' } })).toBe(
      'Ada Admin approved the title company Lone Star Title.',
    );
    expect(describeAuditEvent({ action: 'title_company.rejected', ...ada, data: { companyName: 'Shady Title', reason: 'no licence' } })).toBe(
      'Ada Admin turned down the title company Shady Title. Reason: no licence.',
    );
  });

  it('says when nobody or a deleted account acted, and still words an action it does not know', () => {
    expect(describeAuditEvent({ action: 'documents.reordered', actorName: null, actorId: null, data: {} })).toBe(
      'The system changed the order of the documents.',
    );
    expect(describeAuditEvent({ action: 'documents.reordered', actorName: null, actorId: 'gone', data: {} })).toBe(
      'A deleted account changed the order of the documents.',
    );
    expect(describeAuditEvent({ action: 'video.recording_started', ...nora, data: {} })).toBe(
      'Nora Notary recorded an event this version cannot describe (video recording started).',
    );
  });

  it('says what an administrator changed on an account, naming only the fields that changed', () => {
    const ada = { actorName: 'Ada Admin', actorId: 'u-ada' };
    const account = { userId: 'u-sam', userName: 'Sam Signer' };
    expect(describeAuditEvent({ action: 'user.role_added', ...ada, data: { ...account, role: 'notary' } })).toBe('Ada Admin gave Sam Signer the notary role.');
    expect(describeAuditEvent({ action: 'user.role_removed', ...ada, data: { ...account, role: 'title_agent', companiesLeft: [] } })).toBe(
      'Ada Admin took the title agent role from Sam Signer.',
    );
    expect(
      describeAuditEvent({ action: 'user.updated', ...ada, data: { ...account, before: { email: 'a@x.example' }, after: { email: 'b@y.example' } } }),
    ).toBe('Ada Admin changed Sam Signer’s email from a@x.example to b@y.example; the new address must be confirmed.');
    expect(
      describeAuditEvent({
        action: 'user.updated',
        ...ada,
        data: {
          userId: 'u-sam',
          userName: 'Samuel Signer',
          before: { name: 'Sam Signer', email: 'a@x.example' },
          after: { name: 'Samuel Signer', email: 'b@y.example' },
        },
      }),
    ).toBe('Ada Admin renamed Sam Signer to Samuel Signer and changed their email from a@x.example to b@y.example; the new address must be confirmed.');
    expect(
      describeAuditEvent({ action: 'user.created', ...ada, data: { ...account, after: { email: 's@x.example', roles: ['signer', 'title', 'root'] } } }),
    ).toBe('Ada Admin created an account for Sam Signer (s@x.example) with the signer and title company roles and emailed them a link to set their password.');
    expect(describeAuditEvent({ action: 'user.signature_reset', ...ada, data: { ...account, before: { hasSignature: false, hasInitials: true } } })).toBe(
      'Ada Admin cleared the saved initials of Sam Signer.',
    );
  });
});
