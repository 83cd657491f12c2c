import { useId } from 'react';
import { formatFieldDate } from '#shared/dates.ts';
import type { NotaryStamp } from '#shared/fields.ts';

/**
 * What the notary's seal and certificate fields print, drawn in the page the way the sealed PDF
 * draws them (server: notarization/seal.ts and the certificate block of render.ts).
 */

const sealInk = '#17338a';

/** Text along an arc, shrunk to the room it has. */
function ArcText({ id, text, path, length, size }: { id: string; text: string; path: string; length: number; size: number }) {
  const fitted = Math.min(size, (length / Math.max(1, text.length)) * 1.6);
  return (
    <>
      <path id={id} d={path} fill="none" />
      <text fontSize={fitted} fontWeight={700} fill={sealInk} fontFamily="Helvetica, Arial, sans-serif" letterSpacing={0.5}>
        <textPath href={`#${id}`} startOffset="50%" textAnchor="middle">
          {text}
        </textPath>
      </text>
    </>
  );
}

export function NotarySeal({ stamp }: { stamp: NotaryStamp }) {
  const id = useId();
  const name = stamp.notaryName.toUpperCase();
  const state = `STATE OF ${stamp.stateName.replace(/^the /, '').toUpperCase()}`;
  return (
    <svg className="notary-seal" viewBox="0 0 200 200" role="img" aria-label={`Notary seal of ${stamp.notaryName}, Notary Public, State of ${stamp.stateName}`}>
      <circle cx="100" cy="100" r="95" fill="none" stroke={sealInk} strokeWidth="5" />
      <circle cx="100" cy="100" r="70" fill="none" stroke={sealInk} strokeWidth="2" />
      {/* Top: left to right over the top; bottom: left to right under the bottom, letters upright. */}
      <ArcText id={`${id}-top`} text={name} path="M 22,100 A 78,78 0 0 1 178,100" length={220} size={17} />
      <ArcText id={`${id}-bottom`} text={state} path="M 13,100 A 87,87 0 0 0 187,100" length={200} size={15} />
      <line x1="48" y1="70" x2="152" y2="70" stroke={sealInk} strokeWidth="1.5" />
      <text x="100" y="96" textAnchor="middle" fontSize="15" fontWeight="700" fill={sealInk} fontFamily="Helvetica, Arial, sans-serif">
        NOTARY PUBLIC
      </text>
      <text
        x="100"
        y="117"
        textAnchor="middle"
        fontSize="11"
        fill={sealInk}
        fontFamily="Helvetica, Arial, sans-serif"
        textLength={Math.min(120, 6.2 * (10 + stamp.commissionNumber.length))}
        lengthAdjust="spacingAndGlyphs"
      >
        Comm. No. {stamp.commissionNumber}
      </text>
      <text x="100" y="136" textAnchor="middle" fontSize="11" fill={sealInk} fontFamily="Helvetica, Arial, sans-serif">
        Expires {formatFieldDate(stamp.commissionExpiresOn, stamp.commissionState)}
      </text>
    </svg>
  );
}

/** The certificate block as it will be printed: serif, 8 to 10 points, on white. */
export function CertificatePreview({ text, pointScale }: { text: string; pointScale: number }) {
  return (
    <div className="certificate-preview" style={{ fontSize: `${Math.max(8, 9 * pointScale)}px` }}>
      {text.split('\n').map((line) => (
        <p key={line}>{line}</p>
      ))}
    </div>
  );
}
