import { createElement, lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { createBrowserRouter, Navigate, Outlet, useLocation, type RouteObject } from 'react-router';
import { getEffectiveRole, getRoleHome, hasAnyRole, onlineRoles } from '#shared/roles.ts';
import { ChatPlacement } from '#web/components/chat-opener.tsx';
import { AppErrorScreen, RouteErrorBoundary } from '#web/components/error-screens.tsx';
import { LoadingWorkspace } from '#web/components/loading.tsx';
import { getStoredUser } from '#web/lib/browser-storage.ts';

type PageModule = { default: ComponentType };
type Loader = () => Promise<PageModule>;

/**
 * One lazy component per loader and attempt, kept outside React state: a transition may render a
 * suspended page several times before it commits, and each render must see the same lazy component.
 * A new attempt (Try Again on the error screen) gets a fresh one, so a failed chunk is fetched again.
 */
const lazyPages = new Map<Loader, Map<number, LazyExoticComponent<ComponentType>>>();
function getLazyPage(load: Loader, attempt: number) {
  let attempts = lazyPages.get(load);
  if (!attempts) {
    attempts = new Map();
    lazyPages.set(load, attempts);
  }
  let component = attempts.get(attempt);
  if (!component) {
    component = lazy(load);
    attempts.set(attempt, component);
  }
  return component;
}

function LazyAttempt({ load, attempt = 0 }: { load: Loader; attempt?: number }) {
  // The component comes from the module-level cache above, so it is the same on every render.
  return <Suspense fallback={<LoadingWorkspace />}>{createElement(getLazyPage(load, attempt))}</Suspense>;
}

/** A lazily loaded page; with a route name it is wrapped in the route-level error screen. */
function page(load: Loader, routeName?: string) {
  if (!routeName) return <LazyAttempt load={load} />;
  return <RouteErrorBoundary routeName={routeName}>{(attempt) => <LazyAttempt key={attempt} load={load} attempt={attempt} />}</RouteErrorBoundary>;
}

/** '/' and unknown paths go to the role home when a user is stored, else /login. */
function RoleHomeRedirect() {
  const user = getStoredUser();
  return <Navigate to={user ? getRoleHome(getEffectiveRole(user)) : '/login'} replace />;
}

// The heartbeat of a notary or witness who is online, loaded only for them: everyone else's first load (the login page's) carries none of it.
const AvailabilityHeartbeat = lazy(() =>
  import('./features/dashboard/availability-heartbeat.tsx')
    .then((module) => ({ default: module.AvailabilityHeartbeat }))
    .catch(() => ({ default: () => null })),
);

/** Mounts the heartbeat for a signed-in notary or platform witness; read again on every navigation, so signing in or out starts or stops it. */
function AvailabilityHeartbeatMount() {
  useLocation();
  if (!hasAnyRole(getStoredUser(), onlineRoles)) return null;
  return (
    <Suspense fallback={null}>
      <AvailabilityHeartbeat />
    </Suspense>
  );
}

// A ring that fails to load leaves the page as it is (offers then ring on the next page load), never the app's error screen.
const OfferRing = lazy(() => import('./features/gnw/offer-ring.tsx').catch(() => ({ default: () => null })));

/**
 * The offer ring (decision 051) for a signed-in notary or platform witness, loaded only for them, on
 * every page but the signing workspace and the session pages, where a ringing dialog would break into
 * a notarization under way. Mounted here rather than in the dashboard layout because a web feature
 * imports no other (the layout is the dashboard feature's, the ring Notarize Now's).
 */
function OfferRingMount() {
  const { pathname } = useLocation();
  const isInNotarization = pathname.startsWith('/session/') || pathname.startsWith('/signing');
  if (isInNotarization || !hasAnyRole(getStoredUser(), onlineRoles)) return null;
  return (
    <Suspense fallback={null}>
      <OfferRing />
    </Suspense>
  );
}

function Root() {
  return (
    <ChatPlacement>
      <AvailabilityHeartbeatMount />
      <OfferRingMount />
      <Outlet />
    </ChatPlacement>
  );
}

const loadDashboard = () => import('./pages/dashboard.tsx');
const loadSigning = () => import('./pages/signing.tsx');

export const routes: RouteObject[] = [
  {
    element: <Root />,
    errorElement: <AppErrorScreen />,
    children: [
      { path: '/', element: <RoleHomeRedirect /> },
      { path: '/login', element: page(() => import('./pages/login.tsx')) },
      { path: '/mfa/setup', element: page(() => import('./pages/mfa-setup.tsx')) },
      { path: '/mfa/verify', element: page(() => import('./pages/mfa-verify.tsx')) },
      { path: '/register', element: page(() => import('./pages/register.tsx')) },
      { path: '/register/user', element: page(() => import('./pages/register-user.tsx')) },
      { path: '/register/notary', element: page(() => import('./pages/register-notary.tsx')) },
      { path: '/register/title-company', element: page(() => import('./pages/register-title-company.tsx')) },
      { path: '/setup', element: page(() => import('./pages/setup.tsx')) },
      { path: '/session/complete', element: page(() => import('./pages/session-complete.tsx'), 'Session Complete') },
      { path: '/session', element: page(() => import('./pages/session-list.tsx'), 'Session') },
      { path: '/session/:jobId', element: page(() => import('./pages/session-entry.tsx'), 'Session') },
      { path: '/session/:jobId/:docId', element: page(() => import('./pages/session-room.tsx'), 'Session') },
      ...['/signing', '/signing/:jobId', '/signing/:jobId/:docId'].map((path) => ({ path, element: page(loadSigning, 'Signing Session') })),
      { path: '/verify', element: page(() => import('./pages/verify.tsx')) },
      { path: '/verify-archive', element: page(() => import('./pages/verify-archive.tsx')) },
      { path: '/claim/:token', element: page(() => import('./pages/claim.tsx')) },
      { path: '/verify-email/:token', element: page(() => import('./pages/verify-email.tsx')) },
      { path: '/request-access', element: page(() => import('./pages/request-access.tsx')) },
      { path: '/notarize', element: page(() => import('./pages/notarize.tsx')) },
      { path: '/notarize-now', element: page(() => import('./pages/notarize-now.tsx')) },
      { path: '/gnw-login', element: page(() => import('./pages/gnw-login.tsx')) },
      { path: '/gnw/start', element: page(() => import('./pages/gnw-start.tsx'), 'Notarize Now') },
      { path: '/gnw', element: <Navigate to="/gnw/start" replace /> },
      { path: '/gnw/setup', element: page(() => import('./pages/gnw-setup.tsx'), 'Notarize Now setup') },
      { path: '/dashboard', element: page(loadDashboard, 'Dashboard') },
      { path: '/admin/new-title-company', element: page(() => import('./pages/admin-new-title-company.tsx'), 'New title company') },
      { path: '/admin/title-companies', element: page(() => import('./pages/admin-title-companies.tsx'), 'Title companies') },
      { path: '/admin/users', element: page(() => import('./pages/admin-users.tsx'), 'Users') },
      { path: '/admin/pricing', element: page(() => import('./pages/admin-pricing.tsx'), 'Prices') },
      { path: '/company', element: page(() => import('./pages/my-company.tsx'), 'Company') },
      { path: '/companies/:companyId', element: page(() => import('./pages/company.tsx'), 'Title company') },
      { path: '/admin/mail', element: page(() => import('./pages/admin-mail.tsx'), 'Mail') },
      { path: '/admin/mail/templates', element: page(() => import('./pages/admin-mail-templates.tsx'), 'Mail templates') },
      { path: '/admin/notaryloop-test', element: page(() => import('./pages/admin-notaryloop-test.tsx'), 'Notary loop test') },
      { path: '/jobs/detail', element: page(() => import('./pages/job-detail.tsx'), 'Job Details') },
      { path: '/jobs/:jobId/recording', element: page(() => import('./pages/job-recording.tsx'), 'Session Recording') },
      { path: '/billing/pending', element: page(() => import('./pages/billing-pending.tsx'), 'Pending invoices') },
      { path: '/billing/company', element: page(() => import('./pages/billing-company.tsx'), 'Title company billing') },
      { path: '/billing/company/:companyId', element: page(() => import('./pages/billing-company.tsx'), 'Title company billing') },
      { path: '/help', element: page(() => import('./pages/help.tsx')) },
      { path: '/calendar', element: page(() => import('./pages/calendar.tsx'), 'Calendar') },
      { path: '/docs/api', element: page(() => import('./pages/api-reference.tsx'), 'API reference') },
      { path: '/dashboard/signer', element: <RoleHomeRedirect /> },
      { path: '/dashboard/admin', element: <RoleHomeRedirect /> },
      { path: '/dashboard/notary', element: <RoleHomeRedirect /> },
      { path: '/signature', element: page(() => import('./pages/signature.tsx')) },
      { path: '/initials', element: page(() => import('./pages/initials.tsx')) },
      { path: '/verify/resume/:token', element: page(() => import('./pages/verify-resume.tsx'), 'Identity step') },
      { path: '*', element: <RoleHomeRedirect /> },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
