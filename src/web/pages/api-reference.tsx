import { Link } from 'react-router';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { ApiReference } from '#web/features/integrations/api-reference.tsx';
import { paths } from '#web/paths.ts';

/** /docs/api: the API's reference (decision 054); public like the document it reads, inside the layout for a signed-in person. */
export default function ApiReferencePage() {
  const user = useCurrentUser();
  if (user) {
    return (
      <DashboardLayout user={user} task="API reference">
        <ApiReference />
      </DashboardLayout>
    );
  }
  return (
    <main className="centered-page">
      <div className="wide">
        <ApiReference />
        <p>
          <Link to={paths.login}>Go to sign in</Link>
        </p>
      </div>
    </main>
  );
}
