import './identity.css';
import { FormAlert } from '#web/components/field.tsx';
import { useIdentityPolicies } from './api/identity-queries.ts';
import { describePolicy } from './identity-words.ts';

/**
 * 'Identity rules by state' on the help page: each state's rules from GET /api/identity/policies,
 * every figure with its citation. A table on a wide screen; a card per state on a phone.
 */
export function IdentityPoliciesTable() {
  const policies = useIdentityPolicies();
  const items = policies.data?.items ?? [];
  const defaultRow = items.find((policy) => policy.code === policies.data?.defaultCode);
  const described = items.map((policy) => ({ policy, lines: describePolicy(policy) }));
  const labels = described[0]?.lines.map((line) => line.label) ?? [];
  return (
    <section className="card stack" aria-labelledby="identity-rules-title">
      <h2 id="identity-rules-title">Identity rules by state</h2>
      <p>
        Before a remote notarization, each signer proves who they are: a check of a government photo ID, a selfie, and questions about their own records. The
        notary’s commissioning state sets the rules below.{defaultRow ? ` A state without its own row follows “${defaultRow.name}”.` : ''}
      </p>
      {policies.isPending ? <p role="status">Loading the rules…</p> : null}
      <FormAlert message={policies.error ? `The rules could not be loaded: ${policies.error.message}` : null} />
      {described.length > 0 ? (
        <>
          <div className="policies-table-wrap">
            <table className="table policies-table">
              <caption className="visually-hidden">Identity rules by state, with their citations</caption>
              <thead>
                <tr>
                  <th scope="col">Rule</th>
                  {described.map(({ policy }) => (
                    <th key={policy.code} scope="col">
                      {policy.name}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {labels.map((label, row) => (
                  <tr key={label}>
                    <th scope="row">{label}</th>
                    {described.map(({ policy, lines }) => (
                      <td key={policy.code}>
                        {lines[row]?.value}
                        <span className="policy-citation">{lines[row]?.citation}</span>
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <ul className="policy-cards">
            {described.map(({ policy, lines }) => (
              <li key={policy.code}>
                <h3>{policy.name}</h3>
                <dl>
                  {lines.map((line) => (
                    <div key={line.label}>
                      <dt>{line.label}</dt>
                      <dd>
                        {line.value}
                        <span className="policy-citation">{line.citation}</span>
                      </dd>
                    </div>
                  ))}
                </dl>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
