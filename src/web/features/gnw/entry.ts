import { gnwLanes, emailSignInConstants, type GnwEstimate, type GnwLane } from '#shared/gnw.ts';
import { formatCents } from '#shared/pricing.ts';
import type { FileRules } from '#web/components/drop-zone-rules.ts';
import { getStoredUser, storeWizardSeed } from '#web/lib/browser-storage.ts';
import { paths } from '#web/paths.ts';

/**
 * The rules of the way into Notarize Now (decision 051), apart from the pages so they can be tested
 * without a browser: the files the landing takes, its "from" price, the gate's seed, and what the
 * code sign-in page does with each answer.
 */

/** Where a person goes once signed in on the way in. */
export const gnwStartPath = '/gnw/start';
/** The sign-in page for an account that needs its password, coming back to the wizard. */
export const passwordSignInPath = `/login?next=${encodeURIComponent(gnwStartPath)}`;

/** The PDFs the landing keeps in the browser until the job exists: the upload limit of documents. */
export function getSeedFileRules(maxBytes: number | null): FileRules {
  return { mimeTypes: ['application/pdf'], extensions: ['.pdf'], kind: 'a PDF', kindPlural: 'PDFs', maxBytes, isMultiple: true };
}

/** At most this many files are kept, as a job takes at most 20 documents at once. */
export const maxSeedFiles = 20;

/** Adds newly chosen files to those kept, one per name (a file chosen again replaces the earlier one). */
export function mergeSeedFiles<F extends { name: string }>(kept: readonly F[], added: readonly F[]): { files: F[]; refusal: string | null } {
  const byName = new Map<string, F>();
  for (const file of [...kept, ...added]) byName.set(file.name, file);
  const files = [...byName.values()];
  if (files.length <= maxSeedFiles) return { files, refusal: null };
  return { files: files.slice(0, maxSeedFiles), refusal: `Choose at most ${maxSeedFiles} PDFs at once; the others were left out.` };
}

/** "from $25.00" for one acknowledgment with one signer, or null when prices are not set. */
export function describeStartingPrice(estimate: Pick<GnwEstimate, 'totalCents' | 'lines'> | null | undefined): string | null {
  if (!estimate || estimate.lines.length === 0 || estimate.totalCents <= 0) return null;
  return `from ${formatCents(estimate.totalCents)}`;
}

/**
 * The gate's seed from its address: the lane (instant unless it says scheduled) and the other
 * query values as the form, each a short line (an address is no place for long text).
 */
export function readGateSeed(params: URLSearchParams): { lane: GnwLane; form: Record<string, string> } {
  const laneParam = params.get('lane');
  const lane: GnwLane = (gnwLanes as readonly string[]).includes(laneParam ?? '') ? (laneParam as GnwLane) : 'instant';
  const form: Record<string, string> = {};
  for (const [key, value] of params) {
    if (key === 'lane' || key.length > 40 || Object.keys(form).length >= 20) continue;
    form[key] = value.slice(0, 200);
  }
  return { lane, form };
}

/**
 * The gate, /notarize: saves the seed from its address, then answers where to go: /gnw/start for a
 * signed-in person, /gnw-login for anyone else. A browser that cannot keep the seed (storage blocked
 * in private browsing) still goes on: the wizard then starts from its first step.
 */
export function passGate(params: URLSearchParams): string {
  const { lane, form } = readGateSeed(params);
  try {
    storeWizardSeed(lane, form);
  } catch {
    // storage blocked: nothing kept
  }
  return getStoredUser() ? gnwStartPath : paths.gnwLogin;
}

/** Keeps digits only, at most six: what the code field holds as the person types or pastes. */
export function normalizeCodeInput(value: string): string {
  return value.replace(/\D/g, '').slice(0, 6);
}

/** Seconds before another code may be asked for, counted from when the last one was sent. */
export function getResendWait(sentAt: number | null, now: number, cooldownSeconds: number = emailSignInConstants.resendCooldownSeconds): number {
  if (sentAt === null) return 0;
  return Math.max(0, Math.ceil((sentAt + cooldownSeconds * 1000 - now) / 1000));
}

/** What the page does with a refused call: a sentence, the password path, or a wait before another code. */
export type EntryRefusal = { kind: 'password'; message: string } | { kind: 'wait'; message: string; seconds: number } | { kind: 'message'; message: string };

export function readEntryRefusal(error: { status: number; code: string | null; message: string; data: unknown }, fallback: string): EntryRefusal {
  const message = error.message.trim() || fallback;
  if (error.code === 'password_sign_in_required') return { kind: 'password', message };
  if (error.code === 'code_already_sent') {
    const detail = (error.data as { detail?: { retryAfterSeconds?: unknown } } | null)?.detail;
    const fromMessage = /(\d+) seconds?/.exec(message)?.[1];
    const seconds =
      typeof detail?.retryAfterSeconds === 'number' ? detail.retryAfterSeconds : fromMessage ? Number(fromMessage) : emailSignInConstants.resendCooldownSeconds;
    return { kind: 'wait', message, seconds };
  }
  if (error.status === 0) return { kind: 'message', message: 'We could not reach Open RON. Check your connection and try again.' };
  return { kind: 'message', message };
}
