import { useMutation } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { useEffect, useRef, useState } from 'react';
import type { IdentityCheck, ResumeLink } from '#shared/identity.ts';
import { FormAlert } from '#web/components/field.tsx';
import { identityCalls } from './api/identity-queries.ts';
import { describePartStatus, formatWhen } from './identity-words.ts';

/** The link as the phone opens it: the server gives a path on this site. */
function toAbsoluteUrl(path: string): string {
  return new URL(path, window.location.origin).href;
}

function LinkAndCode({ link }: { link: ResumeLink }) {
  const url = toAbsoluteUrl(link.url);
  const [qr, setQr] = useState<{ url: string; image: string | null } | null>(null);
  useEffect(() => {
    let isCurrent = true;
    QRCode.toDataURL(url, { width: 220, margin: 1, color: { dark: '#00335b', light: '#ffffff' } })
      .then((image) => isCurrent && setQr({ url, image }))
      .catch(() => isCurrent && setQr({ url, image: null }));
    return () => {
      isCurrent = false;
    };
  }, [url]);
  const image = qr?.url === url ? qr.image : undefined;
  return (
    <div className="stack">
      <p>Scan this code with your phone’s camera, or open the link on your phone. We also emailed you the link.</p>
      {image ? <img className="qr" src={image} alt="QR code of the link to continue on your phone" width={220} height={220} /> : null}
      {image === null ? <p className="muted">The QR code could not be drawn: use the link.</p> : null}
      <p className="resume-link">
        <a href={url}>{url}</a>
      </p>
      <p className="muted">The link works until {formatWhen(link.expiresAt)}.</p>
    </div>
  );
}

/**
 * 'Continue on your phone': a link and its QR code for the phone, while this page asks for the
 * check every few seconds (the step polls) and carries on by itself when the phone is done.
 */
export function ContinueOnPhone({ check, onClose }: { check: IdentityCheck; onClose: () => void }) {
  const link = useMutation({ mutationFn: () => identityCalls.createResumeLink(check.checkId) });
  const { mutate } = link;
  // One link when the panel opens (each link is also emailed): not a second one from a repeated effect.
  const hasAsked = useRef(false);
  useEffect(() => {
    if (hasAsked.current) return;
    hasAsked.current = true;
    mutate();
  }, [mutate]);
  const parts = [
    ...(check.credential.required ? [{ name: 'ID photos', status: describePartStatus(check.credential.status) }] : []),
    ...(check.selfie.required ? [{ name: 'Selfie', status: describePartStatus(check.selfie.status) }] : []),
    { name: 'Questions', status: describePartStatus(check.kba.status) },
  ];
  return (
    <section className="stack phone-panel" aria-labelledby="phone-panel-title">
      <h2 id="phone-panel-title">Continue on your phone</h2>
      {link.isPending ? <p role="status">Making your link…</p> : null}
      <FormAlert message={link.error?.message ?? null} />
      {link.data ? <LinkAndCode link={link.data} /> : null}
      <h3>What your phone has done</h3>
      <ul className="phone-progress" aria-live="polite">
        {parts.map((part) => (
          <li key={part.name}>
            <span>{part.name}</span> <span className="strong">{part.status}</span>
          </li>
        ))}
      </ul>
      <p className="lobby-status" role="status">
        <span className="spinner" aria-hidden="true" /> This page carries on by itself when your phone has finished.
      </p>
      <div className="actions">
        <button type="button" className="button" disabled={link.isPending} onClick={() => link.mutate()}>
          Send a new link
        </button>
        <button type="button" className="button" onClick={onClose}>
          Carry on on this computer
        </button>
      </div>
    </section>
  );
}
