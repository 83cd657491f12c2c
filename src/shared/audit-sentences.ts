import type { AuditAction } from './audit.ts';
import { formatCalendarDay, formatDateTime, formatDuration, type DateOptions } from './dates.ts';
import type { documentTags } from './documents.ts';
import { fieldLabels, fieldTypes, type FieldType } from './fields.ts';
import { jobStatusLabels, jobStatuses, notarizationTypes, type JobStatus } from './jobs.ts';
import { formatPeriod } from './billing.ts';
import { formatCents, priceUnitLabels, type PriceUnit } from './pricing.ts';
import { roleLabels, roles, type Role } from './roles.ts';
import { revocationReasonLabels, revocationReasons, type RevocationReason } from './notaries.ts';
import { getUsStateName } from './us-states.ts';

/**
 * Every audit event as a sentence people read, in the job's history and on the audit pages of the
 * notarized PDF: "Nora Notary started the session.", "Sam Signer signed page 3 of deed.pdf.". A
 * sentence states only what the event recorded: an older event without a document name or page
 * gets a sentence without them, never a guess.
 */

export interface AuditSentenceEvent {
  action: string;
  /** The name of the account that acted, when it still exists. */
  actorName: string | null;
  actorId?: string | null;
  data: Record<string, unknown>;
}

/** What a sentence is written from: the event's recorded data and who acted, in words. */
interface Facts {
  /** "Nora Notary"; "A deleted account" when the actor is gone; "The system" when there was none. */
  actor: string;
  hasActor: boolean;
  data: Record<string, unknown>;
  dates: DateOptions;
}

// ---------------------------------------------------------------------------------------------
// Reading recorded data, which may be older than the current shape of an event

function readText(data: Record<string, unknown>, key: string): string | null {
  const value = data[key];
  return typeof value === 'string' && value.trim() ? value.trim() : null;
}

/** "invoice 2026-000042 of Acme Title for November 2026 ($1,250.00)", from what the event recorded. */
function describeInvoice(data: Record<string, unknown>): string {
  const number = readText(data, 'number');
  const company = readText(data, 'companyName');
  const period = readText(data, 'period');
  const total = typeof data.totalCents === 'number' && Number.isInteger(data.totalCents) ? formatCents(data.totalCents) : null;
  return [
    number ? `invoice ${number}` : 'an invoice',
    company ? ` of ${company}` : '',
    period && /^\d{4}-\d{2}$/.test(period) ? ` for ${formatPeriod(period)}` : '',
    total ? ` (${total})` : '',
  ].join('');
}

/** "First seal ($25.00 per notarial act, notarial fee)" from a price event's data. */
function describePriceItem(data: Record<string, unknown>): string {
  const label = readText(data, 'label') ?? readText(data, 'key') ?? 'a price';
  const cents = typeof data.amountCents === 'number' && Number.isInteger(data.amountCents) ? formatCents(data.amountCents) : null;
  const unit = readText(data, 'unit');
  const unitLabel = unit && unit in priceUnitLabels ? priceUnitLabels[unit as PriceUnit] : null;
  const kind = readText(data, 'feeKind') === 'notarial' ? 'notarial fee' : readText(data, 'feeKind') === 'platform' ? 'platform fee' : null;
  const facts = [cents && unitLabel ? `${cents} ${unitLabel}` : cents, kind].filter(Boolean).join(', ');
  return facts ? `“${label}” (${facts})` : `“${label}”`;
}

/** "$39.00" from an amount in cents an event recorded, or null. */
function readCents(data: Record<string, unknown>, key: string): string | null {
  const value = data[key];
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? formatCents(value) : null;
}

/** " (reported by Stripe)" when the payment's state came from the provider rather than from a call of ours. */
function paymentSource(data: Record<string, unknown>): string {
  const source = readText(data, 'source');
  return source === 'webhook' ? ' (reported by Stripe)' : source === 'sync' ? ' (found when the payment was checked with Stripe)' : '';
}

function readCount(data: Record<string, unknown>, key: string): number | null {
  const value = data[key];
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

function readRecord(data: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = data[key];
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function readStatus(data: Record<string, unknown>, key: string): JobStatus | null {
  const value = data[key];
  return typeof value === 'string' && (jobStatuses as readonly string[]).includes(value) ? (value as JobStatus) : null;
}

function readFieldType(data: Record<string, unknown>): FieldType | null {
  const value = data.type;
  return typeof value === 'string' && (fieldTypes as readonly string[]).includes(value) ? (value as FieldType) : null;
}

function quote(text: string): string {
  return `“${text}”`;
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** ", allowed: read jobs and documents" from a key event's scopes. */
function describeScopes(data: Record<string, unknown>): string {
  const words: Record<string, string> = { 'jobs:read': 'read jobs', 'jobs:write': 'write jobs', documents: 'documents', webhooks: 'webhooks' };
  const scopes = Array.isArray(data.scopes) ? data.scopes.flatMap((scope) => (typeof scope === 'string' && words[scope] ? [words[scope]] : [])) : [];
  return scopes.length ? `, allowed: ${joinClauses(scopes)}` : '';
}

function joinClauses(clauses: string[]): string {
  if (clauses.length <= 1) return clauses[0] ?? '';
  return `${clauses.slice(0, -1).join(', ')} and ${clauses.at(-1)}`;
}

/** Appends "Reason: …." to a sentence when a reason was recorded. */
function withReason(sentence: string, reason: string | null): string {
  return reason ? `${sentence} Reason: ${reason.replace(/[.\s]+$/, '')}.` : sentence;
}

const roleWords: Record<string, string> = { signer: 'a signer', witness: 'a witness', observer: 'an observer', notary: 'the notary' };

const companyRoleWords: Record<string, string> = { title: 'title staff', title_agent: 'an agent' };

function describeCompanyRole(role: string | null): string {
  return (role && companyRoleWords[role]) ?? 'a member';
}

function describeJobType(data: Record<string, unknown>): string {
  const name = readText(data, 'jobTypeName');
  return name ? `the job type ${quote(name)}` : 'a job type';
}

function describeRole(role: string | null): string | null {
  return role ? (roleWords[role] ?? `a ${role.replace(/_/g, ' ')}`) : null;
}

function describeAct(key: string | null): string | null {
  return key ? (notarizationTypes.find((type) => type.key === key)?.label ?? null) : null;
}

const tagWords: Record<(typeof documentTags)[number], string> = {
  signing: 'a document to sign',
  reference: 'a reference document',
  identification: 'an identification document',
  supporting: 'a supporting document',
};

function describeTag(tag: string | null): string | null {
  return tag && Object.hasOwn(tagWords, tag) ? tagWords[tag as keyof typeof tagWords] : null;
}

/** "a signature field", "an initials field", "a checkbox". */
function describeFieldKind(type: FieldType | null): string {
  if (!type) return 'a field';
  if (type === 'checkbox') return 'a checkbox';
  const label = fieldLabels[type].toLowerCase();
  return `${/^[aeiou]/.test(label) ? 'an' : 'a'} ${label} field`;
}

/** "page 3 of deed.pdf", "every page of deed.pdf", "page 3", "deed.pdf", or null: only what was recorded. */
function describeFieldPlace(data: Record<string, unknown>): string | null {
  const page = readCount(data, 'page');
  const document = readText(data, 'documentName');
  const where = data.isOnEveryPage === true ? 'every page' : page ? `page ${page}` : null;
  if (where && document) return `${where} of ${document}`;
  return where ?? document;
}

function describeDocument(data: Record<string, unknown>, key = 'documentName'): string {
  return readText(data, key) ?? 'a document';
}

// ---------------------------------------------------------------------------------------------
// Administrators' changes to an account: data { userId, userName, before, after }

/** "the notary role", "the title company role"; null for what is not a role this version knows. */
function describeRoleName(value: unknown): string | null {
  return typeof value === 'string' && (roles as readonly string[]).includes(value) ? `the ${roleLabels[value as Role].toLowerCase()} role` : null;
}

/** "the signer role", "the signer and notary roles", or null when none was recorded. */
function describeRoleList(value: unknown): string | null {
  const known = (Array.isArray(value) ? value : []).filter((role): role is Role => typeof role === 'string' && (roles as readonly string[]).includes(role));
  if (known.length === 0) return null;
  const words = known.map((role) => roleLabels[role].toLowerCase());
  return `the ${joinClauses(words)} role${words.length === 1 ? '' : 's'}`;
}

function describeAccountCreated({ actor, data }: Facts): string {
  const after = readRecord(data, 'after');
  const name = readText(data, 'userName') ?? readText(after, 'name');
  const email = readText(after, 'email');
  const roleList = describeRoleList(after.roles);
  const who = name ? `${name}${email ? ` (${email})` : ''}` : (email ?? 'a person');
  return `${actor} created an account for ${who}${roleList ? ` with ${roleList}` : ''} and emailed them a link to set their password.`;
}

function describeAccountUpdate({ actor, data }: Facts): string {
  const before = readRecord(data, 'before');
  const after = readRecord(data, 'after');
  const oldName = readText(before, 'name');
  const newName = readText(after, 'name');
  const oldEmail = readText(before, 'email');
  const newEmail = readText(after, 'email');
  const person = oldName ?? readText(data, 'userName') ?? 'an account';
  const clauses: string[] = [];
  if (newName) clauses.push(`renamed ${person} to ${newName}`);
  if (newEmail) {
    const whose = clauses.length > 0 ? 'their' : person === 'an account' ? 'an account’s' : `${person}’s`;
    clauses.push(`changed ${whose} email ${oldEmail ? `from ${oldEmail} ` : ''}to ${newEmail}; the new address must be confirmed`);
  }
  return clauses.length > 0 ? `${actor} ${joinClauses(clauses)}.` : `${actor} changed the details of ${person}.`;
}

function describeRoleRemoved({ actor, data }: Facts): string {
  const person = readText(data, 'userName') ?? 'an account';
  const companies = (Array.isArray(data.companiesLeft) ? data.companiesLeft : []).filter(
    (name): name is string => typeof name === 'string' && name.trim() !== '',
  );
  const sentence = `${actor} took ${describeRoleName(data.role) ?? 'a role'} from ${person}`;
  return companies.length > 0 ? `${sentence}, which also removed them from ${joinClauses(companies.map((name) => name.trim()))}.` : `${sentence}.`;
}

// ---------------------------------------------------------------------------------------------
// The sentences

function describeStatusChange({ actor, data }: Facts): string {
  const from = readStatus(data, 'from');
  const to = readStatus(data, 'to');
  const reason = readText(data, 'reason');
  let what: string;
  if (to === 'in_session') what = 'started the session';
  else if (from === 'in_session' && to === 'ready') what = 'paused the session';
  else if (to === 'completed') what = 'completed the job';
  else if (to === 'cancelled') what = data.noShow === true ? 'cancelled the job as a no-show: nobody came to the session' : 'cancelled the job';
  else if (from && to) what = `moved the job from ${jobStatusLabels[from]} to ${jobStatusLabels[to]}`;
  else if (to) what = `moved the job to ${jobStatusLabels[to]}`;
  else what = 'changed the job’s status';
  return withReason(`${actor} ${what}.`, reason);
}

function describeJobUpdate({ actor, data, dates }: Facts): string {
  const clauses: string[] = [];
  const title = readText(data, 'title');
  if (title) clauses.push(`renamed the job ${quote(title)}`);
  const act = describeAct(readText(data, 'notarizationType'));
  if (act) clauses.push(`changed the notarial act to ${act}`);
  if (Object.hasOwn(data, 'scheduledAt')) {
    const scheduledAt = readText(data, 'scheduledAt');
    const when = scheduledAt ? formatDateTime(scheduledAt, dates) : '';
    if (when) clauses.push(`scheduled the job for ${when}`);
    else if (data.scheduledAt === null) clauses.push('cleared the scheduled time');
  }
  return `${actor} ${clauses.length ? joinClauses(clauses) : 'changed the job’s details'}.`;
}

function describeNotaryChange({ actor, data }: Facts): string {
  const fromName = readText(data, 'fromName');
  const toName = readText(data, 'toName');
  const hadNotary = Boolean(fromName ?? readText(data, 'from'));
  const hasNotary = Boolean(toName ?? readText(data, 'to'));
  if (hadNotary && hasNotary) {
    return fromName && toName
      ? `${actor} replaced ${fromName} with ${toName} as the job’s notary.`
      : toName
        ? `${actor} made ${toName} the job’s notary.`
        : `${actor} changed the job’s notary.`;
  }
  if (hasNotary) return `${actor} assigned ${toName ?? 'a notary'} to the job.`;
  if (hadNotary) return `${actor} removed ${fromName ?? 'the notary'} from the job.`;
  return `${actor} changed the job’s notary.`;
}

const participantChangeWords: Record<string, (value: unknown) => string | null> = {
  name: (value) => (typeof value === 'string' && value.trim() ? `name to ${quote(value.trim())}` : null),
  email: (value) => (typeof value === 'string' && value.trim() ? `email address to ${value.trim()}` : null),
  role: (value) => (typeof value === 'string' && value ? `role to ${value.replace(/_/g, ' ')}` : null),
};

function describeParticipantUpdate({ actor, data }: Facts): string {
  const name = readText(data, 'name');
  const changes = Object.entries(readRecord(data, 'changes'))
    .map(([key, value]) => participantChangeWords[key]?.(value) ?? null)
    .filter((clause): clause is string => clause !== null);
  const whose = name ? `${name}’s` : 'a participant’s';
  return changes.length ? `${actor} changed ${whose} ${joinClauses(changes)}.` : `${actor} changed ${whose} details.`;
}

function describeFieldFill({ actor, data }: Facts): string {
  const type = readFieldType(data);
  const place = describeFieldPlace(data);
  const on = place ? ` on ${place}` : '';
  switch (type) {
    case 'signature':
      return `${actor} signed ${place ?? 'a signature field'}.`;
    case 'initials':
      return `${actor} initialed ${place ?? 'an initials field'}.`;
    case 'notary_signature':
      return `${actor} signed ${place ?? 'a notary signature field'} as the notary.`;
    case 'notary_seal':
      return `${actor} applied the notary seal${on}.`;
    case 'notarial_certificate':
      return `${actor} added the notarial certificate${on}.`;
    case 'checkbox':
      return `${actor} checked a box${on}.`;
    default:
      return `${actor} filled ${type ? `the ${fieldLabels[type].toLowerCase()} field` : 'a field'}${on}.`;
  }
}

function describeFieldPlacement({ actor, data }: Facts): string {
  const participant = readText(data, 'participantName');
  const place = describeFieldPlace(data);
  return `${actor} placed ${describeFieldKind(readFieldType(data))}${participant ? ` for ${participant}` : ''}${place ? ` on ${place}` : ''}.`;
}

function describeFieldRemoval({ actor, data }: Facts): string {
  const participant = readText(data, 'participantName');
  const place = describeFieldPlace(data);
  return `${actor} removed ${describeFieldKind(readFieldType(data))}${participant ? ` for ${participant}` : ''}${place ? ` from ${place}` : ''}.`;
}

function describeDocumentUpdate({ actor, data }: Facts): string {
  const before = readText(data, 'name');
  const changes = readRecord(data, 'changes');
  const newName = readText(changes, 'name');
  const tag = describeTag(readText(changes, 'tag'));
  const clauses: string[] = [];
  if (newName) clauses.push(before ? `renamed ${before} to ${newName}` : `renamed a document to ${newName}`);
  if (tag) clauses.push(`marked ${newName ?? before ?? 'a document'} as ${tag}`);
  return clauses.length ? `${actor} ${joinClauses(clauses)}.` : `${actor} changed ${before ?? 'a document'}.`;
}

/** What the seal's PAdES level (decision 058) promises a verifier, in words; only the level the event recorded. */
const padesLevelWords: Record<string, string> = {
  'B-B': 'a basic signature',
  'B-T': 'a timestamped signature',
  'B-LT': 'long-term validation data',
  'B-LTA': 'long-term validation data and an archive timestamp',
};

function describeLongTermProof(data: Record<string, unknown>): string {
  const level = readText(data, 'padesLevel');
  const words = level ? padesLevelWords[level] : undefined;
  if (!words) return '';
  const missing = readSentences(data, 'validationDataMissing');
  const unpublished = readSentences(data, 'revocationNotPublished');
  return [
    ` It carries ${words} (PAdES ${level}).`,
    missing.length > 0 ? ` Not long-term: ${missing.join(' ')}` : '',
    unpublished.length > 0 ? ` ${unpublished.join(' ')}` : '',
  ].join('');
}

function readSentences(data: Record<string, unknown>, key: string): string[] {
  const value = data[key];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string' && item.trim() !== '') : [];
}

function describeNotarization({ actor, data }: Facts): string {
  const document = describeDocument(data);
  // A damaged original is saved again as a whole instead of appended to; the event says why, in a sentence.
  const fullSave = readText(data, 'fullSaveReason');
  const after = `${fullSave ? ` ${fullSave}` : ''}${describeLongTermProof(data)}`;
  if (data.isNotarialAct === true) return `${actor} notarized ${document} and sealed it with the notary’s digital certificate.${after}`;
  if (data.isNotarialAct === false)
    return `${actor} sealed ${document} with the notary’s digital certificate as a record of electronic signing, not a notarial act.${after}`;
  return `${actor} sealed ${document} with the notary’s digital certificate.${after}`;
}

function describeArchiveRenewal({ data, dates }: Facts): string {
  const expiresAt = readText(data, 'archiveTimestampExpiresAt');
  const until = expiresAt && !Number.isNaN(Date.parse(expiresAt)) ? formatCalendarDay(expiresAt.slice(0, 10), dates) : '';
  return `The archive timestamp of ${describeDocument(data)} was renewed: a new copy carries a fresh document timestamp${until ? `, good until ${until}` : ''}; the earlier copy still verifies.`;
}

const signatureMethodWords: Record<string, string> = { draw: 'drawn', type: 'typed', upload: 'uploaded' };

function describeSignatureSaved(kind: 'signature' | 'initials') {
  return ({ actor, data }: Facts): string => {
    const method = readText(data, 'method');
    const how = method ? signatureMethodWords[method] : undefined;
    return `${actor} saved ${kind === 'signature' ? 'a new signature' : 'new initials'}${how ? ` (${how})` : ''}.`;
  };
}

/** Notarize Now (decision 051): the person's instant request, as its trail says it. */
const gnwSentences = {
  'gnw.requested': ({ actor, data }: Facts) => {
    const lane = readText(data, 'lane') === 'scheduled' ? 'for a booked time' : 'with the next notary online';
    const act = describeAct(readText(data, 'act'));
    return `${actor} started a Notarize Now request ${lane}${act ? ` (${act.toLowerCase()})` : ''}.`;
  },
  'gnw.updated': ({ actor, data }: Facts) => {
    const changes = readRecord(data, 'changes');
    const clauses: string[] = [];
    if (typeof changes.lane === 'string') clauses.push(changes.lane === 'scheduled' ? 'chose a booked time' : 'chose the next notary online');
    const act = describeAct(readText(changes, 'act'));
    if (act) clauses.push(`chose ${act.toLowerCase()} as the act`);
    const state = readText(changes, 'signerState');
    if (state) clauses.push(`said they are in ${getUsStateName(state)}`);
    const witnesses = readCount(changes, 'witnessesRequested');
    if (witnesses !== null) clauses.push(witnesses === 0 ? 'asked for no witnesses' : `asked the platform for ${plural(witnesses, 'witness', 'witnesses')}`);
    if (Array.isArray(changes.otherSigners)) {
      const names = changes.otherSigners
        .map((signer) => (signer && typeof signer === 'object' ? readText(signer as Record<string, unknown>, 'name') : null))
        .filter((name): name is string => Boolean(name));
      clauses.push(
        names.length === 0 ? 'is the only signer' : `named ${joinClauses(names)} as ${names.length === 1 ? 'the other signer' : 'the other signers'}`,
      );
    }
    return clauses.length ? `${actor} ${joinClauses(clauses)} on their Notarize Now request.` : `${actor} changed their Notarize Now request.`;
  },
  'gnw.preauthorized': ({ actor, data }: Facts) =>
    `${actor} authorised ${readCents(data, 'amountCents') ?? 'the estimate'} on a card for their Notarize Now request; it is taken only once the notarization completes.`,
  'gnw.finalized': ({ actor, data }: Facts) => {
    const charged = readCount(data, 'chargedCents');
    return `${actor} finished their Notarize Now request; ${charged ? `${formatCents(charged)} was charged` : 'nothing was charged'}.`;
  },
} satisfies Partial<Record<AuditAction, (facts: Facts) => string>>;

/** One sentence per action: a new action in audit.ts without an entry here fails typecheck. */
const journalSentences = {
  'journal.finalized': ({ actor, data }: Facts) =>
    `${actor} finalized ${plural(readCount(data, 'entries') ?? 0, 'journal entry', 'journal entries')} of this job.`,
  'journal.marked_test': ({ actor, data }: Facts) =>
    `${actor} marked ${plural(readCount(data, 'entries') ?? 0, 'journal entry', 'journal entries')} of this job as test entries.`,
  'journal.addendum_added': ({ actor }: Facts) => `${actor} added an addendum to a finalized journal entry.`,
  'journal.read_by_admin': ({ actor }: Facts) => `${actor} read a notary’s journal as an administrator.`,
  'journal.entry_deleted': ({ actor }: Facts) => `${actor} deleted a journal entry whose retention period had ended.`,
  'journal.archive_requested': ({ actor, data }: Facts) =>
    `${actor} asked for an archive of the records of commission ${readText(data, 'commissionNumber') ?? ''} (${readText(data, 'commissionState') ?? ''})${data.isOnBehalf === true ? ' on the notary’s behalf' : ''}.`,
  'journal.archive_downloaded': ({ actor, data }: Facts) =>
    `${actor} downloaded the archive of the records of commission ${readText(data, 'commissionNumber') ?? ''} (${readText(data, 'commissionState') ?? ''}).`,
  'journal.archive_deleted': ({ actor }: Facts) => `${actor} deleted an archive of a notary’s records.`,
};

/** A title company's webhooks (decision 055): "Tia added the webhook endpoint https://… to Acme Title." */
function describeEndpoint(data: Record<string, unknown>): string {
  const url = readText(data, 'url');
  const company = readText(data, 'companyName');
  return `the webhook endpoint${url ? ` ${url}` : ''}${company ? ` of ${company}` : ''}`;
}

const webhookSentences = {
  'webhook.created': ({ actor, data }: Facts) => `${actor} registered ${describeEndpoint(data)}.`,
  'webhook.updated': ({ actor, data }: Facts) => `${actor} changed ${describeEndpoint(data)}.`,
  'webhook.disabled': ({ actor, data }: Facts) => `${actor} disabled ${describeEndpoint(data)}.`,
  'webhook.secret_rotated': ({ actor, data }: Facts) => `${actor} gave ${describeEndpoint(data)} a new signing secret.`,
  'webhook.replayed': ({ actor, data }: Facts) =>
    `${actor} sent ${readText(data, 'eventType') ? `the ${readText(data, 'eventType')} event` : 'an event'} to ${describeEndpoint(data)} again.`,
};

export const auditSentences: Record<AuditAction, (facts: Facts) => string> = {
  'job.created': ({ actor, data }) => {
    const title = readText(data, 'title');
    const act = describeAct(readText(data, 'notarizationType'));
    return `${actor} created the job${title ? ` ${quote(title)}` : ''}${act ? ` (${act})` : ''}.`;
  },
  'job.updated': describeJobUpdate,
  'job.status_changed': describeStatusChange,
  'job.notary_replaced': describeNotaryChange,
  'job.participants_notified': ({ actor, data }) => {
    const count = readCount(data, 'count');
    return `${actor} emailed ${count === null ? 'the participants' : plural(count, 'participant')} about the job.`;
  },
  'job.notary_notified': ({ actor, data }) => `${actor} told ${readText(data, 'notaryName') ?? 'the job’s notary'} that the job is ready for them.`,
  'participant.added': ({ actor, data }) => {
    const role = describeRole(readText(data, 'role'));
    return `${actor} invited ${readText(data, 'name') ?? 'a participant'}${role ? ` as ${role}` : ''}.`;
  },
  'participant.updated': describeParticipantUpdate,
  'participant.removed': ({ actor, data }) => {
    const role = describeRole(readText(data, 'role'));
    return `${actor} removed ${readText(data, 'name') ?? 'a participant'}${role ? `, ${role},` : ''} from the job.`;
  },
  'participant.reminded': ({ actor, data }) => {
    const name = readText(data, 'name');
    const sentTo = readText(data, 'sentTo');
    return `${actor} emailed ${name ?? 'a participant'} a new invitation link${sentTo ? ` at ${sentTo}` : ''}.`;
  },
  'participants.reminded': ({ actor, data }) => {
    const reminded = readCount(data, 'reminded');
    const skipped = readCount(data, 'skipped');
    const sent = `${actor} emailed new invitation links to ${reminded === null ? 'the participants who had not joined' : plural(reminded, 'participant')}.`;
    return skipped ? `${sent} ${plural(skipped, 'other was', 'others were')} left out: already joined or emailed in the last ten minutes.` : sent;
  },
  'participant.id_bypass_changed': ({ actor, data }) => {
    const name = readText(data, 'name') ?? 'a participant';
    const method = readText(data, 'method');
    if (data.enabled === true && method === 'personal_knowledge')
      return withReason(`${actor} identified ${name} by personal knowledge instead of the identity step.`, readText(data, 'reason'));
    if (data.enabled === true && method === 'credible_witness')
      return withReason(`${actor} identified ${name} through a credible witness instead of the identity step.`, readText(data, 'reason'));
    if (data.enabled === true) return withReason(`${actor} let ${name} skip identity verification.`, readText(data, 'reason'));
    if (data.enabled === false) return `${actor} required identity verification of ${name} again.`;
    return `${actor} changed whether ${name} skips identity verification.`;
  },
  'participant.access_requested': ({ data }) =>
    `A new invitation link was requested for ${readText(data, 'name') ?? 'a participant'} and emailed to their address.`,
  'invite.claimed': ({ actor, hasActor, data }) => {
    const participant = readText(data, 'participantName');
    const who = hasActor ? actor : (participant ?? 'A participant');
    const seat = participant && hasActor && participant !== actor ? ` for ${participant}` : '';
    return `${who} accepted the invitation${seat}${data.via === 'confirmed_email' ? ' by confirming their email address' : ''}.`;
  },
  'document.uploaded': ({ actor, data }) => {
    const pages = readCount(data, 'pageCount');
    return `${actor} uploaded ${describeDocument(data, 'name')}${pages ? ` (${plural(pages, 'page')})` : ''}.`;
  },
  'document.updated': describeDocumentUpdate,
  'document.deleted': ({ actor, data }) => `${actor} removed ${describeDocument(data, 'name')} from the job.`,
  'documents.reordered': ({ actor }) => `${actor} changed the order of the documents.`,
  'document.completed': ({ actor, data }) => `${actor} marked ${describeDocument(data)} complete.`,
  'document.notarized': describeNotarization,
  'document.archive_timestamp_renewed': describeArchiveRenewal,
  'audit_asset.added': ({ actor, data }) => {
    const tag = readText(data, 'tag');
    return `${actor} added ${describeDocument(data)} to the audit record${tag ? ` as ${quote(tag)}` : ''}.`;
  },
  'audit_asset.removed': ({ actor, data }) => {
    const tag = readText(data, 'tag');
    return `${actor} removed ${describeDocument(data)} from the audit record${tag ? ` (${quote(tag)})` : ''}.`;
  },
  'field.placed': describeFieldPlacement,
  'field.removed': describeFieldRemoval,
  'field.filled': describeFieldFill,
  'signature.saved': describeSignatureSaved('signature'),
  'signature.esign_consented': ({ actor }) => `${actor} agreed to sign electronically.`,
  'initials.saved': describeSignatureSaved('initials'),
  'user.password_set_by_admin': ({ actor, data }) => `${actor} set a new password for ${readText(data, 'userName') ?? 'an account'}.`,
  'user.password_reset': ({ data }) => {
    const name = readText(data, 'userName');
    return `${name ? `The password of ${name}` : 'An account’s password'} was reset with an emailed link.`;
  },
  'user.email_verified': ({ data }) => {
    const name = readText(data, 'userName');
    const means = data.via === 'email_code' ? 'an emailed sign-in code' : 'an emailed link';
    return `${name ? `The email address of ${name}` : 'An account’s email address'} was confirmed with ${means}.`;
  },
  'user.created': describeAccountCreated,
  'user.created_with_email_code': ({ data }) => {
    const name = readText(data, 'userName');
    const email = readText(data, 'email');
    const who = name ? `${name}${email ? ` (${email})` : ''}` : (email ?? 'Someone');
    return `${who} created a signer account on the way into Notarize Now, proving the address with a code emailed to it; the account has no password.`;
  },
  'user.updated': describeAccountUpdate,
  'user.deactivated': ({ actor, data }) =>
    `${actor} deactivated the account of ${readText(data, 'userName') ?? 'a person'}: they were signed out everywhere and cannot sign in.`,
  'user.reactivated': ({ actor, data }) => `${actor} reactivated the account of ${readText(data, 'userName') ?? 'a person'}.`,
  'user.role_added': ({ actor, data }) => `${actor} gave ${readText(data, 'userName') ?? 'an account'} ${describeRoleName(data.role) ?? 'a role'}.`,
  'user.role_removed': describeRoleRemoved,
  'user.signature_reset': ({ actor, data }) => {
    const before = readRecord(data, 'before');
    const what =
      before.hasSignature === true && before.hasInitials === false
        ? 'signature'
        : before.hasSignature === false && before.hasInitials === true
          ? 'initials'
          : 'signature and initials';
    return `${actor} cleared the saved ${what} of ${readText(data, 'userName') ?? 'a person'}.`;
  },
  'mfa.totp_enabled': ({ actor }) => `${actor} linked an authenticator app.`,
  'mfa.backup_codes_generated': ({ actor, data }) => {
    const count = readCount(data, 'count');
    return `${actor} generated ${count === null ? 'new' : `${count} new`} backup codes.`;
  },
  'notary.certificate_uploaded': ({ actor, data, dates }) => {
    const subject = readText(data, 'subject');
    const notAfter = readText(data, 'notAfter');
    const until = notAfter ? formatCalendarDay(notAfter.slice(0, 10), dates) : '';
    return `${actor} uploaded a signing certificate${subject ? ` for ${subject}` : ''}${until ? `, valid until ${until}` : ''}.`;
  },
  'notary.certificate_removed': ({ actor, data }) => {
    const subject = readText(data, 'subject');
    return `${actor} removed the signing certificate${subject ? ` for ${subject}` : ''}.`;
  },
  'notary.certificate_revoked': ({ actor, data }) => {
    const reason = readText(data, 'reason');
    const because =
      reason && reason !== 'unspecified' && (revocationReasons as readonly string[]).includes(reason)
        ? revocationReasonLabels[reason as RevocationReason]
        : null;
    const serial = readText(data, 'serialNumber');
    return `${actor} revoked the signing certificate of ${readText(data, 'userName') ?? 'a notary'}${serial ? ` (serial ${serial})` : ''}, which was valid until then${
      because ? `, because ${because}` : ''
    }; their next notarization gets a new certificate.`;
  },
  'notary.approved': ({ actor, data }) => `${actor} approved the notary account of ${readText(data, 'notaryName') ?? 'a notary'}.`,
  'notary.rejected': ({ actor, data }) =>
    withReason(`${actor} turned down the notary application of ${readText(data, 'notaryName') ?? 'a notary'}.`, readText(data, 'reason')),
  'notary.profile_created': ({ actor, data }) => `${actor} put the commission of ${readText(data, 'notaryName') ?? 'a notary'} on file; it waits for approval.`,
  'notary.profile_updated': ({ actor, data }) => {
    const fields = Array.isArray(data.fields) ? data.fields.length : 0;
    const sentence = `${actor} updated the notary profile of ${readText(data, 'notaryName') ?? 'a notary'} (${plural(fields, 'field')})`;
    return data.needsReapproval === true ? `${sentence}; the new commission needs approval again.` : `${sentence}.`;
  },
  'notary.profile_file_uploaded': ({ actor, data }) =>
    `${actor} filed ${readText(data, 'fileName') ? quote(readText(data, 'fileName') ?? '') : 'a document'} with the notary profile of ${readText(data, 'notaryName') ?? 'a notary'}.`,
  'notary.profile_file_deleted': ({ actor, data }) =>
    `${actor} deleted ${readText(data, 'fileName') ? quote(readText(data, 'fileName') ?? '') : 'a document'} from the notary profile of ${readText(data, 'notaryName') ?? 'a notary'}.`,
  'notary.signature_removed': ({ actor, data }) => `${actor} removed the saved signature of ${readText(data, 'notaryName') ?? 'a notary'}.`,
  'notary.initials_removed': ({ actor, data }) => `${actor} removed the saved initials of ${readText(data, 'notaryName') ?? 'a notary'}.`,
  'notary.activated': ({ actor, data }) => `${actor} activated ${readText(data, 'notaryName') ?? 'a notary'} again.`,
  'notary.deactivated': ({ actor, data }) => `${actor} deactivated ${readText(data, 'notaryName') ?? 'a notary'}: they take no new work.`,
  'title_company.approved': ({ actor, data }) => `${actor} approved the title company ${readText(data, 'companyName') ?? 'an applicant'}.`,
  'title_company.rejected': ({ actor, data }) =>
    withReason(`${actor} turned down the title company ${readText(data, 'companyName') ?? 'an applicant'}.`, readText(data, 'reason')),
  'title_company.created': ({ actor, data }) => `${actor} created the title company ${readText(data, 'companyName') ?? 'a company'}, approved.`,
  'title_company.updated': ({ actor, data }) => {
    const fields = Array.isArray(data.fields) ? data.fields.filter((field): field is string => typeof field === 'string' && field.trim() !== '') : [];
    return `${actor} updated the title company ${readText(data, 'companyName') ?? 'a company'}${fields.length ? ` (${joinClauses(fields)})` : ''}.`;
  },
  'title_company.closed': ({ actor, data }) => {
    const members = Array.isArray(data.members) ? data.members.length : null;
    const lost = members === null ? '' : members === 0 ? '; it had no members' : `; ${plural(members, 'member')} lost access to its jobs`;
    return `${actor} closed the title company ${readText(data, 'companyName') ?? 'a company'}${lost}.`;
  },
  'title_company.member_invited': ({ actor, data }) =>
    `${actor} invited ${readText(data, 'name') ?? 'someone'} to join ${readText(data, 'companyName') ?? 'a title company'} as ${describeCompanyRole(readText(data, 'role'))}.`,
  'title_company.member_joined': ({ actor, data }) =>
    `${readText(data, 'name') ?? actor} joined ${readText(data, 'companyName') ?? 'a title company'} as ${describeCompanyRole(readText(data, 'role'))}.`,
  'title_company.member_removed': ({ actor, data }) =>
    `${actor} removed ${readText(data, 'name') ?? 'a member'} from ${readText(data, 'companyName') ?? 'a title company'}.`,
  'title_company.invite_revoked': ({ actor, data }) =>
    `${actor} withdrew the invitation of ${readText(data, 'name') ?? 'someone'} to join ${readText(data, 'companyName') ?? 'a title company'}.`,
  'title_company.job_type_created': ({ actor, data }) => `${actor} added ${describeJobType(data)} to ${readText(data, 'companyName') ?? 'a title company'}.`,
  'title_company.job_type_updated': ({ actor, data }) => `${actor} changed ${describeJobType(data)} of ${readText(data, 'companyName') ?? 'a title company'}.`,
  'title_company.job_type_deleted': ({ actor, data }) => `${actor} deleted ${describeJobType(data)} of ${readText(data, 'companyName') ?? 'a title company'}.`,
  'api_key.created': ({ actor, data }) =>
    `${actor} made the API key ${quote(readText(data, 'name') ?? 'unnamed')} (${readText(data, 'prefix') ?? 'a key'}…) for ${readText(data, 'companyName') ?? 'a title company'}${describeScopes(data)}.`,
  'api_key.revoked': ({ actor, data }) =>
    `${actor} revoked the API key ${quote(readText(data, 'name') ?? 'unnamed')} (${readText(data, 'prefix') ?? 'a key'}…) of ${readText(data, 'companyName') ?? 'a title company'}.`,
  'api_key.used': ({ data }) => {
    const status = typeof data.status === 'number' ? data.status : null;
    const route = [readText(data, 'method'), readText(data, 'route')].filter(Boolean).join(' ');
    return `The API key ${quote(readText(data, 'name') ?? 'unnamed')} (${readText(data, 'prefix') ?? 'a key'}…) called ${route || 'the API'}${status === null ? '' : `, answered ${status}`}.`;
  },
  'job.charged': ({ data }) => {
    const cents = (key: string) => {
      const value = data[key];
      return typeof value === 'number' && Number.isInteger(value) ? formatCents(value) : null;
    };
    const total = cents('totalCents');
    const parts = [
      cents('notarialFeeCents') ? `notarial fee ${cents('notarialFeeCents')}` : null,
      cents('platformFeeCents') ? `platform fees ${cents('platformFeeCents')}` : null,
    ].filter(Boolean);
    return `The job was charged ${total ?? 'at its prices'}${parts.length ? ` (${parts.join(', ')})` : ''}.`;
  },
  'pricing.default_created': ({ actor, data }) => `${actor} added ${describePriceItem(data)} to the default prices.`,
  'pricing.default_updated': ({ actor, data }) => `${actor} changed the default price ${describePriceItem(data)}.`,
  'pricing.default_deleted': ({ actor, data }) => `${actor} removed ${describePriceItem(data)} from the default prices.`,
  'pricing.defaults_reordered': ({ actor }) => `${actor} put the default prices in a new order.`,
  'pricing.company_seeded': ({ actor, data }) => {
    const copied = readCount(data, 'copied') ?? 0;
    const kept = readCount(data, 'kept') ?? 0;
    return `${actor} copied ${plural(copied, 'default price')} to ${readText(data, 'companyName') ?? 'a title company'}${kept ? `, keeping ${plural(kept, 'price')} of its own` : ''}.`;
  },
  'pricing.company_price_set': ({ actor, data }) => `${actor} set ${describePriceItem(data)} for ${readText(data, 'companyName') ?? 'a title company'}.`,
  'pricing.company_price_removed': ({ actor, data }) =>
    `${actor} removed the price ${describePriceItem(data)} of ${readText(data, 'companyName') ?? 'a title company'}; the default applies again.`,
  'invoice.issued': ({ actor, data }) => `${actor} issued ${describeInvoice(data)}.`,
  'invoice.paid': ({ actor, data }) => {
    const reference = readText(data, 'reference');
    return `${actor} marked ${describeInvoice(data)} as paid${reference ? ` (reference ${reference})` : ''}.`;
  },
  'invoice.voided': ({ actor, data }) => {
    const reason = readText(data, 'reason');
    if (!reason) return `${actor} voided ${describeInvoice(data)}.`;
    return `${actor} voided ${describeInvoice(data)}. Reason: ${reason}${/[.!?]$/.test(reason) ? '' : '.'}`;
  },
  'invoice.generated': ({ actor, data }) => {
    const period = readText(data, 'period');
    const companies = readCount(data, 'companies') ?? 0;
    const charges = readCount(data, 'charges') ?? 0;
    return `${actor} gathered ${plural(charges, 'charge')} of ${period && /^\d{4}-\d{2}$/.test(period) ? formatPeriod(period) : 'a month'} onto the draft invoices of ${plural(companies, 'company', 'companies')}.`;
  },
  'payment.held': ({ actor, data }) => {
    const amount = readCents(data, 'amountCents');
    if (readText(data, 'provider') === 'invoice') {
      return `${actor} chose to pay through ${readText(data, 'companyName') ?? 'the title company'}’s invoice${amount ? ` (${amount} estimated)` : ''}.`;
    }
    return `${actor} had ${amount ?? 'the estimated charges'} held on a card until the notarization completes.`;
  },
  'payment.captured': ({ data }) => {
    const amount = readCents(data, 'capturedCents');
    const charged = readCount(data, 'chargedCents');
    const captured = readCount(data, 'capturedCents');
    const shortfall = charged !== null && captured !== null && charged > captured ? formatCents(charged - captured) : null;
    const what =
      readText(data, 'provider') === 'invoice'
        ? `${amount ?? 'The charges'} will go on ${readText(data, 'companyName') ?? 'the title company'}’s next invoice`
        : `${amount ?? 'The charges'} ${amount ? 'was' : 'were'} captured from the card held for this job${shortfall ? `; ${shortfall} of the charges was more than the card held and was not collected` : ''}`;
    return `${what}${paymentSource(data)}.`;
  },
  'payment.released': ({ data }) => {
    const amount = readCents(data, 'amountCents');
    const what =
      readText(data, 'provider') === 'invoice'
        ? 'Nothing will be invoiced for this job'
        : `The ${amount ? `${amount} ` : ''}hold on the card was released; nothing was charged`;
    return `${what}${paymentSource(data)}.`;
  },
  'payment.failed': ({ data }) => {
    const amount = readCents(data, 'amountCents');
    const step = readText(data, 'step');
    const what =
      step === 'capture'
        ? `Capturing ${amount ?? 'the charges'} from the card held for this job failed`
        : step === 'release'
          ? 'Releasing the hold on the card failed'
          : `Holding ${amount ?? 'the estimated charges'} on a card failed`;
    const reason = readText(data, 'message');
    return `${what}${paymentSource(data)}${reason ? `: ${reason.replace(/[.!]+$/, '')}` : ''}.`;
  },
  'gnw.search_started': ({ actor, data }) => {
    const seconds = readCount(data, 'searchSeconds');
    return `${actor} asked for a notary now: the job is offered to online notaries one at a time${seconds ? ` for up to ${formatDuration(seconds * 1000)}` : ''}.`;
  },
  'gnw.search_unmatched': ({ data }) => {
    const offers = readCount(data, 'offersMade');
    return `No notary accepted the job in time${offers === null ? '' : ` (${plural(offers, 'offer')} made)`}; the search stopped, and a time can be booked instead with the card hold kept.`;
  },
  'gnw.notary_matched': ({ actor, data }) => {
    const waited = readCount(data, 'waitedSeconds');
    return `${actor} accepted the job as its notary${waited === null ? '' : ` ${formatDuration(waited * 1000)} after the search started`}; the job is ready for its session.`;
  },
  'gnw.witness_matched': ({ actor }) => `${actor} accepted to witness the job as a witness the platform provides.`,
  'gnw.test_offer_sent': ({ actor, data }) => `${actor} sent a test offer to ${readText(data, 'notaryName') ?? 'a notary'} from the loop test page.`,
  'notary.test_offers_changed': ({ actor, data }) =>
    data.acceptsTestOffers === true
      ? `${actor} agreed to receive test offers from the administrators’ loop test page.`
      : `${actor} stopped receiving test offers from the administrators’ loop test page.`,
  'booking.booked': ({ actor, data }) => {
    const notary = readText(data, 'notaryName');
    const label = readText(data, 'label');
    return `${actor} booked a session${notary ? ` with ${notary}` : ''}${label ? ` for ${label}` : ''}.`;
  },
  'booking.cancelled': ({ actor, data }) => {
    const notary = readText(data, 'notaryName');
    const label = readText(data, 'label');
    return `${actor} cancelled the session booked${notary ? ` with ${notary}` : ''}${label ? ` for ${label}` : ''}.`;
  },
  'gnw.switched': ({ actor }) => `${actor} stopped waiting for a notary to be free now and chose to book a time instead; the card hold was kept.`,
  'gnw.cancelled': ({ actor, data }) => {
    const fee = readCount(data, 'feeCents') ? readCents(data, 'feeCents') : null;
    return `${actor} cancelled the Notarize Now request${fee ? `; the no-show fee of ${fee} applies, as the booked time had passed or was less than 15 minutes away` : ''}.`;
  },
  'mail.read': ({ actor, data }) => {
    const page = readCount(data, 'page');
    const messages = Array.isArray(data.messageIds) ? data.messageIds.length : null;
    return `${actor} read ${page ? `page ${page} of ` : ''}the local mailbox${messages === null ? '' : ` (${plural(messages, 'message')})`}.`;
  },
  'mail.attachment_read': ({ actor, data }) => {
    const filename = readText(data, 'filename');
    return `${actor} downloaded ${filename ? `the attachment “${filename}”` : 'an attachment'} of a message in the local mailbox.`;
  },
  'calendar.feed_created': ({ actor, data }) =>
    data.replacedEarlier === true
      ? `${actor} made a new calendar feed address; the earlier one stopped working.`
      : `${actor} made a calendar feed address for their calendar app.`,
  'calendar.feed_revoked': ({ actor }) => `${actor} turned off their calendar feed address.`,
  'video.joined': ({ actor, data }) => {
    const role = describeRole(readText(data, 'role'));
    if (data.lobbyState === 'admitted') return `${actor} entered the live session${role ? ` as ${role}` : ''}, agreeing to be recorded.`;
    return `${actor} entered the lobby of the live session${role ? ` as ${role}` : ''}, agreeing to be recorded, and waited to be admitted.`;
  },
  'video.admitted': ({ actor, data }) => `${actor} admitted ${readText(data, 'name') ?? 'a participant'} to the live session.`,
  'video.denied': ({ actor, data }) => `${actor} did not admit ${readText(data, 'name') ?? 'a participant'} to the live session.`,
  'video.started': ({ actor, data }) => {
    const names = Array.isArray(data.admittedNames) ? data.admittedNames.filter((name): name is string => typeof name === 'string' && name.trim() !== '') : [];
    return `${actor} began the notarial act in the live session${names.length ? ` with ${names.join(', ')} present` : ''}.`;
  },
  'video.finalized': ({ actor }) => `${actor} ended the live session.`,
  'recording.started': ({ actor }) => `${actor} started recording the live session.`,
  'recording.stopped': ({ actor, data }) => {
    const count = readCount(data, 'segmentCount');
    return `${actor} stopped recording the live session${count === null ? '' : `; ${count === 0 ? 'no recorded media had been stored' : `${plural(count, 'recorded segment')} had been stored`} by then`}.`;
  },
  'recording.segment_saved': ({ data }) => {
    const name = readText(data, 'participantName') ?? 'a participant';
    const sequence = readCount(data, 'sequence');
    const durationMs = readCount(data, 'durationMs');
    const seconds = durationMs === null ? null : Math.round(durationMs / 100) / 10;
    const sha256 = readText(data, 'sha256');
    return `Segment ${sequence === null ? '' : `${sequence + 1} `}of the recording of ${name}${seconds === null ? '' : ` (${seconds} seconds)`} was stored${sha256 ? ` with SHA-256 ${sha256}` : ''}.`;
  },
  'identity.started': ({ actor, data }) => `${actor} started the identity step${identityPolicyWords(readText(data, 'policy'))}.`,
  'identity.credential_checked': ({ data }) => {
    const name = readText(data, 'name') ?? 'A participant';
    const kind = readText(data, 'documentType');
    const document = kind === 'passport' ? 'passport' : kind === 'id_card' ? 'ID card' : 'driver’s licence';
    if (data.passed === true) return `${name}’s ${document} passed credential analysis.`;
    const failed = Array.isArray(data.failedChecks) ? data.failedChecks.filter((check): check is string => typeof check === 'string') : [];
    return `${name}’s ${document} failed credential analysis${failed.length > 0 ? ` (${failed.map((check) => credentialCheckWords[check] ?? check).join(', ')})` : ''}.`;
  },
  'identity.selfie_received': ({ data }) => `${readText(data, 'name') ?? 'A participant'} took a photo of their face for the notary.`,
  'identity.kba_started': ({ data }) => {
    const attempt = readCount(data, 'attempt');
    return `${readText(data, 'name') ?? 'A participant'} was shown ${plural(readCount(data, 'questions') ?? 0, 'identity question')}${attempt === null ? '' : ` (attempt ${attempt})`}.`;
  },
  'identity.kba_answered': ({ data }) => {
    const name = readText(data, 'name') ?? 'A participant';
    const score = `${readCount(data, 'correct') ?? 0} of ${readCount(data, 'total') ?? 0} right`;
    if (data.timedOut === true) return `${name} did not answer the identity questions in time (${score}).`;
    return `${name} ${data.passed === true ? 'passed' : 'failed'} the identity questions (${score}).`;
  },
  'identity.ready': ({ data }) => `${readText(data, 'name') ?? 'A participant'} finished every step of identity proofing; the notary’s review is next.`,
  'identity.reviewed': ({ actor, data }) =>
    withReason(
      `${actor} ${data.decision === 'confirmed' ? 'confirmed' : 'rejected'} the identity of ${readText(data, 'name') ?? 'a participant'}.`,
      readText(data, 'reason'),
    ),
  'identity.resume_link_created': ({ data }) => `${readText(data, 'name') ?? 'A participant'} asked for a link to continue the identity step on a phone.`,
  'identity.expired': ({ data }) => {
    const reason = readText(data, 'reason');
    const why =
      reason === 'session_ended'
        ? ' with the session: a later session needs a new one'
        : reason === 'person_changed'
          ? ' because the name or email on their place changed'
          : '';
    return `The identity check of ${readText(data, 'name') ?? 'a participant'} ended${why}.`;
  },
  'identity.reset': ({ actor, data }) =>
    `${actor} restarted the identity step of ${readText(data, 'name') ?? 'a person'} (${plural(readCount(data, 'checks') ?? 0, 'check')} ended).`,
  ...journalSentences,
  ...webhookSentences,
  ...gnwSentences,
  'identity.purged': ({ data }) =>
    `The ID photos and stated details of ${readText(data, 'name') ?? 'a participant'} were deleted at the end of their retention (${plural(readCount(data, 'images') ?? 0, 'image')}).`,
};

const credentialCheckWords: Record<string, string> = {
  readable: 'not readable',
  format: 'not in its issuer’s format',
  check_digits: 'wrong check digits',
  not_expired: 'expired',
  name_matches: 'name does not match',
  birth_date_matches: 'birth date does not match',
  front_matches: 'front does not match the barcode',
};

function identityPolicyWords(code: string | null): string {
  return code ? ` under the ${code === 'RULONA' ? 'default (RULONA)' : code} rules` : '';
}

export function isAuditAction(action: string): action is AuditAction {
  return Object.hasOwn(auditSentences, action);
}

/**
 * The event as a sentence. Times inside it (a scheduled time) are written with `dates`: the
 * viewer's language and zone in the browser, en-US and UTC on the PDF. An action this version does
 * not know (recorded by a later one) is still named, in words as far as they go.
 */
export function describeAuditEvent(event: AuditSentenceEvent, dates: DateOptions = {}): string {
  const hasActor = Boolean(event.actorName?.trim());
  // A change made through an API key (decision 054) has no person behind it: the key is named instead.
  const apiKeyName = event.actorId ? null : readText(event.data ?? {}, 'apiKeyName');
  const actor = hasActor
    ? (event.actorName?.trim() ?? '')
    : event.actorId
      ? 'A deleted account'
      : apiKeyName
        ? `The API key ${quote(apiKeyName)}`
        : 'The system';
  if (isAuditAction(event.action)) return auditSentences[event.action]({ actor, hasActor, data: event.data ?? {}, dates });
  return `${actor} recorded an event this version cannot describe (${event.action.replace(/[._]/g, ' ')}).`;
}
