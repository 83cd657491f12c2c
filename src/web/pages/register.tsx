import { Link } from 'react-router';

const kinds = [
  { to: '/register/user', title: 'Signer', text: 'Sign and notarize your own documents.' },
  { to: '/register/notary', title: 'Notary', text: 'Perform remote online notarizations with your commission.' },
  { to: '/register/title-company', title: 'Title company', text: 'Send closings to signers and notaries for your team.' },
];

export default function RegisterPage() {
  return (
    <main className="centered-page">
      <section className="card wide" aria-labelledby="register-title">
        <h1 id="register-title">Create an account</h1>
        <p className="muted">Choose the kind of account you need.</p>
        <ul className="choice-grid">
          {kinds.map((kind) => (
            <li key={kind.to}>
              <Link className="choice" to={kind.to}>
                <strong>{kind.title}</strong>
                <span>{kind.text}</span>
              </Link>
            </li>
          ))}
        </ul>
        <p className="muted">
          Already registered? <Link to="/login">Sign in</Link>
        </p>
      </section>
    </main>
  );
}
