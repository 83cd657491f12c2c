import { Link } from 'react-router';
import { RegisterForm } from '#web/features/auth/register-form.tsx';

export default function RegisterTitleCompanyPage() {
  return (
    <main className="centered-page">
      <section className="card narrow" aria-labelledby="register-kind-title">
        <p>
          <Link to="/register">All account kinds</Link>
        </p>
        <h1 id="register-kind-title">Register a title company</h1>
        <RegisterForm kind="title-company" />
      </section>
    </main>
  );
}
