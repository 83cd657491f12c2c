import { describe, expect, it, vi } from 'vitest';
import { storageKeys } from '#web/lib/browser-storage.ts';
import { readWizardSeed } from './seed-store.ts';
import { sortFiles } from '#web/components/drop-zone-rules.ts';
import {
  describeStartingPrice,
  getResendWait,
  getSeedFileRules,
  mergeSeedFiles,
  normalizeCodeInput,
  passGate,
  readEntryRefusal,
  readGateSeed,
} from './entry.ts';

const line = { key: 'acknowledgment', label: 'Acknowledgment', unit: 'act', feeKind: 'notarial', quantity: 1, unitCents: 2500, amountCents: 2500 } as const;

describe('the Notarize Now landing', () => {
  it('shows "from" the estimate of one acknowledgment, and nothing when prices are not set', () => {
    expect(describeStartingPrice({ totalCents: 3499, lines: [line] })).toBe('from $34.99');
    expect(describeStartingPrice({ totalCents: 0, lines: [] })).toBeNull();
    expect(describeStartingPrice(undefined)).toBeNull();
  });

  it('takes PDFs up to the upload limit and says why another file is refused', () => {
    const rules = getSeedFileRules(10 * 1024 * 1024);
    const { accepted, refusals } = sortFiles(
      [
        { name: 'deed.pdf', type: 'application/pdf', size: 1000 },
        { name: 'photo.jpg', type: 'image/jpeg', size: 1000 },
        { name: 'huge.pdf', type: 'application/pdf', size: 11 * 1024 * 1024 },
      ],
      rules,
    );
    expect(accepted.map((file) => file.name)).toEqual(['deed.pdf']);
    expect(refusals).toEqual(['photo.jpg is not a PDF.', 'huge.pdf is 11 MB, larger than the 10 MB limit.']);
  });

  it('keeps one file per name and at most 20, saying so', () => {
    const kept = [{ name: 'a.pdf', size: 1 }];
    expect(
      mergeSeedFiles(kept, [
        { name: 'a.pdf', size: 2 },
        { name: 'b.pdf', size: 3 },
      ]),
    ).toEqual({
      files: [
        { name: 'a.pdf', size: 2 },
        { name: 'b.pdf', size: 3 },
      ],
      refusal: null,
    });
    const many = Array.from({ length: 25 }, (_, index) => ({ name: `${index}.pdf` }));
    const merged = mergeSeedFiles([], many);
    expect(merged.files).toHaveLength(20);
    expect(merged.refusal).toBe('Choose at most 20 PDFs at once; the others were left out.');
  });
});

describe('the gate (/notarize)', () => {
  it('keeps the lane the address names, instant otherwise, and the rest as the form', () => {
    expect(readGateSeed(new URLSearchParams('lane=scheduled&act=jurat'))).toEqual({ lane: 'scheduled', form: { act: 'jurat' } });
    expect(readGateSeed(new URLSearchParams('lane=teleport'))).toEqual({ lane: 'instant', form: {} });
    expect(readGateSeed(new URLSearchParams(''))).toEqual({ lane: 'instant', form: {} });
  });

  it('keeps a long or crowded address to short lines', () => {
    const crowded = new URLSearchParams();
    for (let index = 0; index < 30; index += 1) crowded.set(`k${index}`, 'x'.repeat(500));
    crowded.set('y'.repeat(41), 'dropped');
    const { form } = readGateSeed(crowded);
    expect(Object.keys(form)).toHaveLength(20);
    expect(Object.values(form).every((value) => value.length === 200)).toBe(true);
  });

  it('sends a signed-in person to /gnw/start, and still saves the seed the wizard starts from', () => {
    const { local } = stubBrowser({ signedIn: true });
    const before = Date.now();
    expect(passGate(new URLSearchParams('lane=scheduled&act=jurat&title=Deed'))).toBe('/gnw/start');
    const seed = readWizardSeed();
    expect(seed).toEqual({ lane: 'scheduled', form: { act: 'jurat', title: 'Deed' }, createdAt: expect.any(Number) });
    expect(seed!.createdAt).toBeGreaterThanOrEqual(before);
    expect(local.getItem(storageKeys.wizardSeed)).not.toBeNull();
  });

  it('sends anyone else to /gnw-login with the seed saved, and goes on when the browser cannot keep it', () => {
    stubBrowser({ signedIn: false });
    expect(passGate(new URLSearchParams('act=jurat'))).toBe('/gnw-login');
    expect(readWizardSeed()).toMatchObject({ lane: 'instant', form: { act: 'jurat' } });

    stubBrowser({ signedIn: true, isStorageBlocked: true });
    expect(passGate(new URLSearchParams('act=jurat'))).toBe('/gnw/start');
  });
});

/** The two storages of a tab: the signed-in person in session storage, the seed in local storage (which private browsing may refuse). */
function stubBrowser(options: { signedIn: boolean; isStorageBlocked?: boolean }) {
  const items = new Map<string, string>();
  const local = {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => {
      if (options.isStorageBlocked) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      items.set(key, value);
    },
    removeItem: (key: string) => void items.delete(key),
  };
  const person = JSON.stringify({ id: 'u-1', name: 'Sam Signer', email: 'sam@example.test', roles: ['signer'] });
  vi.stubGlobal('localStorage', local);
  vi.stubGlobal('sessionStorage', { getItem: (key: string) => (options.signedIn && key === storageKeys.user ? person : null) });
  return { local };
}

describe('the code sign-in (/gnw-login)', () => {
  it('keeps digits only, at most six, as the code is typed or pasted', () => {
    expect(normalizeCodeInput(' 12-34 56 78')).toBe('123456');
    expect(normalizeCodeInput('abc')).toBe('');
  });

  it('offers a new code 30 s after the last', () => {
    expect(getResendWait(null, 1000)).toBe(0);
    expect(getResendWait(0, 0)).toBe(30);
    expect(getResendWait(0, 29_001)).toBe(1);
    expect(getResendWait(0, 30_000)).toBe(0);
  });

  it('reads each refusal as what the page does: the password path, a wait, or the server’s sentence', () => {
    expect(readEntryRefusal({ status: 409, code: 'password_sign_in_required', message: 'Sign in with your password: …', data: {} }, 'x')).toEqual({
      kind: 'password',
      message: 'Sign in with your password: …',
    });
    const waitMessage = 'A code was already sent. Please wait 12 seconds before requesting another.';
    expect(readEntryRefusal({ status: 429, code: 'code_already_sent', message: waitMessage, data: { detail: { retryAfterSeconds: 12 } } }, 'x')).toEqual({
      kind: 'wait',
      message: waitMessage,
      seconds: 12,
    });
    expect(readEntryRefusal({ status: 429, code: 'code_already_sent', message: waitMessage, data: null }, 'x')).toMatchObject({ seconds: 12 });
    expect(readEntryRefusal({ status: 400, code: 'email_code_invalid', message: 'That code is not right. You have 4 tries left.', data: {} }, 'x')).toEqual({
      kind: 'message',
      message: 'That code is not right. You have 4 tries left.',
    });
    expect(readEntryRefusal({ status: 0, code: null, message: 'Network error', data: null }, 'x').message).toBe(
      'We could not reach Open RON. Check your connection and try again.',
    );
    expect(readEntryRefusal({ status: 500, code: null, message: ' ', data: null }, 'We could not send the code. Please try again.').message).toBe(
      'We could not send the code. Please try again.',
    );
  });
});
