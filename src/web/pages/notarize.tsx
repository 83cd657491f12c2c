import { useEffect } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { readGateSeed } from '#web/features/gnw/entry.ts';
import { getStoredUser, storeWizardSeed } from '#web/lib/browser-storage.ts';

/**
 * Notarize gate: saves the wizard seed, then /gnw/start with a user, else /gnw-login. The lane is
 * instant unless the address says scheduled; a browser that cannot keep the seed still goes on (the
 * wizard then starts from its first step).
 */
export default function NotarizePage() {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  useEffect(() => {
    const { lane, form } = readGateSeed(searchParams);
    try {
      storeWizardSeed(lane, form);
    } catch {
      // storage blocked (private browsing): nothing kept
    }
    navigate(getStoredUser() ? '/gnw/start' : '/gnw-login', { replace: true });
  }, [navigate, searchParams]);
  return (
    <main className="centered-page" role="status">
      <p>Preparing your notarization...</p>
    </main>
  );
}
