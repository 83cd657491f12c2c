import { useEffect } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { getStoredUser, storeWizardSeed } from '#web/lib/browser-storage.ts';

/** Notarize gate: saves the wizard seed, then /gnw/start with a user, else /gnw-login. */
export default function NotarizePage() {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  useEffect(() => {
    const form: Record<string, string> = {};
    for (const [key, value] of searchParams) if (key !== 'lane') form[key] = value;
    storeWizardSeed(searchParams.get('lane') ?? 'instant', form);
    navigate(getStoredUser() ? '/gnw/start' : '/gnw-login', { replace: true });
  }, [navigate, searchParams]);
  return (
    <main className="centered-page" role="status">
      <p>Preparing your notarization...</p>
    </main>
  );
}
