import { notarialFeeCaps } from '#shared/fee-caps.ts';
import { formatCents } from '#shared/pricing.ts';

/** The notarial fee caps this platform holds, each with its statute; other states have none recorded. */
export function FeeCapsTable() {
  return (
    <section className="card stack" aria-labelledby="fee-caps-title">
      <h2 id="fee-caps-title">What state law allows a notary to charge</h2>
      <p className="muted">
        The notarial fee is the notary’s fee for the act; platform fees (technology, identity checks, witnesses) are shown apart from it on every invoice. The
        notarial fees of one act together may not pass the lowest of these caps, because the same prices serve notaries of every state.
      </p>
      <ul className="review-list" aria-label="Notarial fee caps">
        {notarialFeeCaps.map((cap) => (
          <li key={cap.code} className="review-item">
            <h3>
              {cap.name}: {formatCents(cap.perActCents)} per online act
            </h3>
            <p className="muted">
              {cap.rule}. {cap.citation}.
            </p>
          </li>
        ))}
      </ul>
      <p className="muted">No cap is recorded for other states; none is claimed for them.</p>
    </section>
  );
}
