import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { signatureMessages, type Signature, type SignatureKind } from '#shared/signatures.ts';
import { AdoptSignatureDialog } from './adopt-signature-dialog.tsx';
import { signatureKeys } from './api/signature-queries.ts';

/**
 * The in-room dialog as it first shows, for what the person has saved (undefined: not known yet).
 * Drawing and uploading need a browser (canvas, pointer events, image decoding): the session room's
 * journey (e2e/session-room.spec.ts) adopts a drawn signature and uploaded initials through it.
 */
function renderDialog(kind: SignatureKind, saved: Partial<Record<SignatureKind, Signature | null>>): string {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  for (const [savedKind, signature] of Object.entries(saved)) queryClient.setQueryData(signatureKeys.mine(savedKind as SignatureKind), signature);
  return renderToStaticMarkup(
    <QueryClientProvider client={queryClient}>
      <AdoptSignatureDialog kind={kind} personName="Sam Q. Signer" onAdopted={() => undefined} onClose={() => undefined} />
    </QueryClientProvider>,
  );
}

const savedSignature: Signature = {
  id: 'sig-1',
  kind: 'signature',
  method: 'draw',
  imageUrl: '/api/signatures/sig-1/image',
  createdAt: '2031-02-03T16:00:00.000Z',
};
const consentBox = new RegExp(`<input type="checkbox"[^>]*/><span>${signatureMessages.consentWording.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}</span>`);

describe('the dialog that adopts a signature or initials in the room', () => {
  it('opens on the drawing pad, with Type and Upload beside it', () => {
    const html = renderDialog('signature', { signature: null, initials: null });
    expect(html).toContain('Adopt your signature');
    expect(html).toMatch(/<input type="radio"[^>]*checked="" value="draw"/);
    expect(html).toMatch(/<input type="radio"[^>]*value="type"/);
    expect(html).toMatch(/<input type="radio"[^>]*value="upload"/);
    expect(html).toContain('aria-label="Signature drawing area: empty"');
  });

  it('asks for the consent to sign electronically before the first adoption of all', () => {
    expect(renderDialog('signature', { signature: null, initials: null })).toMatch(consentBox);
    expect(renderDialog('initials', { signature: null, initials: null })).toMatch(consentBox);
  });

  it('does not ask again once a signature or initials were adopted', () => {
    expect(renderDialog('initials', { signature: savedSignature, initials: null })).not.toMatch(consentBox);
    expect(renderDialog('signature', { signature: null, initials: { ...savedSignature, kind: 'initials' } })).not.toMatch(consentBox);
  });

  it('waits to know what was adopted before offering to adopt, so the question never flickers', () => {
    const html = renderDialog('signature', {});
    expect(html).not.toMatch(consentBox);
    expect(html).toMatch(/<button type="submit" class="button primary" disabled="">Adopt and sign<\/button>/);
  });
});
