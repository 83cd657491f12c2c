import type { GnwEstimate } from '#shared/gnw.ts';
import { toEstimateView, type EstimateLineView } from './estimate-display.ts';

function Lines({ lines }: { lines: EstimateLineView[] }) {
  return lines.map((line) => (
    <tr key={line.key}>
      <td>
        {line.label}
        <br />
        <span className="muted small">{line.detail}</span>
      </td>
      <td className="amount">{line.amount}</td>
    </tr>
  ));
}

/** The estimate: the notary's notarial fee apart from the platform's fees, the total, and the state's cap with its citation. */
export function EstimateCard({ estimate, isUpdating }: { estimate: GnwEstimate; isUpdating: boolean }) {
  const view = toEstimateView(estimate);
  return (
    <section className="card stack gnw-estimate" aria-labelledby="gnw-estimate-title" aria-busy={isUpdating}>
      <h3 id="gnw-estimate-title">Estimate</h3>
      <table>
        <caption className="visually-hidden">What this notarization is estimated to cost</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col" className="amount">
              Amount
            </th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="rowgroup" colSpan={2}>
              Notarial fee (the notary’s, capped by state law)
            </th>
          </tr>
          <Lines lines={view.notarial.lines} />
          <tr>
            <td>Notarial fee in all</td>
            <td className="amount">{view.notarial.subtotal}</td>
          </tr>
          <tr>
            <th scope="rowgroup" colSpan={2}>
              Platform fees (not part of the notarial fee)
            </th>
          </tr>
          <Lines lines={view.platform.lines} />
          <tr>
            <td>Platform fees in all</td>
            <td className="amount">{view.platform.subtotal}</td>
          </tr>
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Estimated total</th>
            <td className="amount">{view.total}</td>
          </tr>
        </tfoot>
      </table>
      {view.capSentence ? <p className="small">{view.capSentence}</p> : null}
      {view.notes.map((note) => (
        <p key={note} className="muted small">
          {note}
        </p>
      ))}
      {/* Announced when the numbers change, not on every keystroke: the table itself is not a live region. */}
      <p className="visually-hidden" role="status">
        {isUpdating ? 'Updating the estimate…' : `Estimated total ${view.total}.`}
      </p>
    </section>
  );
}
