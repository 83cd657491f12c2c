import { useEffect } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { passGate } from '#web/features/gnw/entry.ts';

/**
 * Notarize gate: saves the wizard seed, then /gnw/start with a user, else /gnw-login (passGate). The
 * lane is instant unless the address says scheduled.
 */
export default function NotarizePage() {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  useEffect(() => {
    navigate(passGate(searchParams), { replace: true });
  }, [navigate, searchParams]);
  return (
    <main className="centered-page" role="status">
      <p>Preparing your notarization...</p>
    </main>
  );
}
