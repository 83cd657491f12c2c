import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { IdentityPoliciesTable } from '#web/features/identity/identity-policies-table.tsx';

const topics = [
  {
    question: 'How do I sign in?',
    answer: 'Use the email and password you registered with on the sign-in page. Use Show to check what you typed.',
  },
  {
    question: 'Which account should I create?',
    answer:
      'Signers register as a user. Commissioned notaries register as a notary and title companies register their company; both are reviewed by an administrator before they can take part in notarizations.',
  },
  {
    question: 'Why does the page say something is not available yet?',
    answer: 'Open RON is being built capability by capability. A page that is not ready says so instead of showing made-up data.',
  },
  {
    question: 'The app looks broken after an update.',
    answer: 'Reload the page. If that does not help, use "Nuclear Clear & Reload" on the error screen to clear cached files and storage.',
  },
];

function HelpContent() {
  return (
    <div className="stack">
      <HelpTopics />
      <IdentityPoliciesTable />
    </div>
  );
}

function HelpTopics() {
  return (
    <section className="card" aria-labelledby="help-title">
      <h1 id="help-title">Help</h1>
      <dl className="faq">
        {topics.map((topic) => (
          <div key={topic.question}>
            <dt>{topic.question}</dt>
            <dd>{topic.answer}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

export default function HelpPage() {
  const user = useCurrentUser();
  const content: ReactNode = <HelpContent />;
  if (user) {
    return (
      <DashboardLayout user={user} task="Help">
        {content}
      </DashboardLayout>
    );
  }
  return (
    <main className="centered-page">
      <div className="wide">
        {content}
        <p>
          <Link to="/login">Go to sign in</Link>
        </p>
      </div>
    </main>
  );
}
