import { formatRecordTime } from '#shared/dates.ts';
import { getUsStateName } from '#shared/us-states.ts';
import type { NotarialFacts } from './notarial-facts.ts';

/**
 * The words of a notarized output's certificate: the facts it is written from, the wording per
 * act, and what it says when the act was not a notarial act. Dates and state names are written
 * here too; certificate-pages.ts lays the words out.
 */

export interface CertificateFacts {
  actKey: string;
  actLabel: string;
  notaryName: string;
  commissionNumber: string;
  /** Two-letter code (TX) or a state's name. */
  commissionState: string;
  county: string;
  /** YYYY-MM-DD */
  commissionExpiresOn: string;
  notarizedAt: Date;
  signerNames: string[];
  /** IANA zone the certificate's date and time are written in; UTC by default. */
  timeZone?: string;
  /** The notary's signature image, drawn above the signature line of the certificate page. */
  notarySignaturePng?: Buffer | null;
  /** What was recorded (notarial-facts.ts): the wording claims only these. */
  notarialFacts: NotarialFacts;
  /** The output's id at /verify and the address to check it, printed on the certificate page. */
  verification: { id: string; url: string };
}

export const communicationTechnologySentence = 'This notarial act involved the use of communication technology.';

/** The state's name as the certificate writes it after "State of": "Texas", "the District of Columbia". */
export function getStateName(state: string): string {
  const name = getUsStateName(state);
  return name === 'District of Columbia' ? 'the District of Columbia' : name;
}

// ---------------------------------------------------------------------------------------------
// Dates

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** Intl.DateTimeFormat is costly to build: one per zone and style. */
function getDateFormat(timeZone: string, style: 'date' | 'dateTime'): Intl.DateTimeFormat {
  const key = `${style}:${timeZone}`;
  let format = dateFormats.get(key);
  if (!format) {
    const options: Intl.DateTimeFormatOptions =
      style === 'date' ? { timeZone, year: 'numeric', month: 'long', day: 'numeric' } : { timeZone, dateStyle: 'long', timeStyle: 'long' };
    try {
      format = new Intl.DateTimeFormat('en-US', options);
    } catch {
      // An unknown zone: write UTC (the printed time names its zone, so it stays true).
      format = new Intl.DateTimeFormat('en-US', { ...options, timeZone: 'UTC' });
    }
    dateFormats.set(key, format);
  }
  return format;
}

/**
 * Dates already printed, by style, zone and instant: every document of a job is sealed with the same
 * time of the act, and every seal of a notary prints the same commission expiry. Bounded.
 */
const printedDates = new Map<string, string>();
const printedDatesLimit = 1024;

function printDate(date: Date, timeZone: string, style: 'date' | 'dateTime'): string {
  const key = `${style}|${timeZone}|${date.getTime()}`;
  let printed = printedDates.get(key);
  if (printed === undefined) {
    printed = getDateFormat(timeZone, style).format(date);
    if (printedDates.size >= printedDatesLimit) printedDates.clear();
    printedDates.set(key, printed);
  }
  return printed;
}

function formatDate(date: Date, timeZone: string): string {
  return printDate(date, timeZone, 'date');
}

export function formatDateTime(date: Date, timeZone: string): string {
  return printDate(date, timeZone, 'dateTime');
}

export function formatIsoDay(day: string): string {
  const date = new Date(`${day}T12:00:00Z`);
  return Number.isNaN(date.getTime()) ? day : formatDate(date, 'UTC');
}

/** "26 November 2026 at 22:14:05 UTC": the audit certificate's times, never ISO strings. */
export function formatAuditTime(date: Date, timeZone = 'UTC'): string {
  return formatRecordTime(date, timeZone);
}

function joinNames(names: string[]): string {
  const clean = names.map((name) => name.trim()).filter(Boolean);
  if (clean.length === 0) return 'the signer';
  if (clean.length <= 2) return clean.join(' and ');
  return `${clean.slice(0, -1).join(', ')}, and ${clean.at(-1)}`;
}

// ---------------------------------------------------------------------------------------------
// The notarial certificate's wording

/**
 * What the certificate states. A notarial act (a recorded session and proven identities) gets the
 * short-form wording per act (after the Revised Uniform Law on Notarial Acts' forms), which says the
 * signers appeared by audio-video communication. Anything else states only what was recorded: who
 * signed electronically, and when.
 */
export function getCertificateWording(facts: CertificateFacts): string {
  const timeZone = facts.timeZone ?? 'UTC';
  const date = formatDate(facts.notarizedAt, timeZone);
  if (!facts.notarialFacts.isNotarialAct) {
    const signed = facts.signerNames.map((name) => name.trim()).filter(Boolean);
    return signed.length
      ? `On ${date}, this record was signed electronically on this platform by ${joinNames(signed)}.`
      : `On ${date}, this record was completed on this platform; no signer's signature is recorded on it.`;
  }
  const names = joinNames(facts.signerNames);
  switch (facts.actKey) {
    case 'acknowledgment':
      return `This record was acknowledged before me on ${date} by ${names}, who appeared before me by means of audio-video communication.`;
    case 'jurat':
      return `Signed and sworn to (or affirmed) before me on ${date} by ${names}, who appeared before me by means of audio-video communication.`;
    case 'oath_affirmation':
      return `On ${date}, ${names} appeared before me by means of audio-video communication and took an oath (or affirmation) administered by me.`;
    case 'signature_witnessing':
      return `Signed before me on ${date} by ${names}, who appeared before me by means of audio-video communication.`;
    case 'copy_certification':
      return `I certify that this is a true and correct copy of a record in the possession of ${names}, presented to me by means of audio-video communication. Dated ${date}.`;
    default:
      return `On ${date}, I performed the notarial act "${facts.actLabel}" for ${names}, who appeared before me by means of audio-video communication.`;
  }
}

/** The sentence that says, with its reasons, that the output is not a notarial act. */
export function getNotNotarialNotice(facts: NotarialFacts): string {
  return `Not a notarial act: ${facts.reasons.join(' ')}`;
}

/** The banner on every page of an output that is not a notarial act. */
export function getNotNotarialBanner(facts: NotarialFacts): string {
  const missing = [...(facts.hasRecordedSession ? [] : ['no recorded audio-video session']), ...(facts.hasProvenIdentity ? [] : ['no proven identity'])];
  return `NOT A NOTARIAL ACT: ${missing.length ? missing.join(' and ') : facts.reasons.join(' ')}`;
}

/**
 * The certificate block a notary places on a page. "This notarial act involved the use of
 * communication technology." is written only for a notarial act: without a recorded session no
 * notarial act took place, by communication technology or otherwise.
 */
export function getCertificateBlockText(facts: CertificateFacts): string {
  const state = getStateName(facts.commissionState);
  const commission = `${facts.notaryName}, Notary Public, State of ${state}. Commission No. ${facts.commissionNumber}, expires ${formatIsoDay(facts.commissionExpiresOn)}.`;
  return (
    facts.notarialFacts.isNotarialAct
      ? [`State of ${state}, County of ${facts.county}`, getCertificateWording(facts), communicationTechnologySentence, commission]
      : [getCertificateWording(facts), getNotNotarialNotice(facts.notarialFacts), commission]
  ).join('\n');
}
