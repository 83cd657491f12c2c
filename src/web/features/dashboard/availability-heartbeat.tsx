import { useLocation } from 'react-router';
import { hasAnyRole, onlineRoles } from '#shared/roles.ts';
import { getStoredUser } from '#web/lib/browser-storage.ts';
import { useAvailabilityHeartbeat } from './use-availability-status.ts';

/** Mounted once at the app's root: keeps a signed-in notary or platform witness who is online online, whatever page they are on. */
export function AvailabilityHeartbeat() {
  // Read again on every navigation, so signing in or out starts or stops the heartbeat.
  useLocation();
  useAvailabilityHeartbeat(hasAnyRole(getStoredUser(), onlineRoles));
  return null;
}
