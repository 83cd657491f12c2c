import { billingRoutes } from './features/billing/billing.routes.ts';
import { calendarEventRoutes, calendarRoutes } from './features/calendar/calendar.routes.ts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { authRoutes } from './features/auth/auth.routes.ts';
import { emailCodeRoutes } from './features/auth/email-code.routes.ts';
import { mfaRoutes } from './features/auth/mfa.routes.ts';
import { availabilityRoutes, notaryAvailabilityRoutes } from './features/availability/availability.routes.ts';
import { documentsRoutes } from './features/documents/documents.routes.ts';
import { safeViewerLinkRoutes, safeViewerRoutes } from './features/documents/safe-viewer/safe-viewer.routes.ts';
import { fieldsRoutes } from './features/fields/fields.routes.ts';
import { gnwRoutes } from './features/gnw/gnw.routes.ts';
import { gnwMatchingRoutes } from './features/gnw/gnw-matching.routes.ts';
import { identityAdminRoutes } from './features/identity/identity-admin.routes.ts';
import { identityJobRoutes, identityRoutes } from './features/identity/identity.routes.ts';
import { emailInvitationsRoutes } from './features/invites/email-invitations.routes.ts';
import { invitesRoutes } from './features/invites/invites.routes.ts';
import { gnwScheduleRoutes } from './features/gnw/gnw-schedule.routes.ts';
import { jobsRoutes } from './features/jobs/jobs.routes.ts';
import { journalRoutes } from './features/journal/journal.routes.ts';
import { archiveRoutes } from './features/journal/archive.routes.ts';
import { mailRoutes } from './features/mail/mail.routes.ts';
import { notariesRoutes } from './features/notaries/notaries.routes.ts';
import { notaryCertificateAdminRoutes } from './features/notaries/notary-certificate-admin.routes.ts';
import { notarizationRoutes, verifyRoutes } from './features/notarization/notarization.routes.ts';
import { jobChargesRoutes, pricingRoutes } from './features/pricing/pricing.routes.ts';
import { jobPaymentRoutes, paymentsRoutes } from './features/payments/payments.routes.ts';
import { notificationsRoutes } from './features/notifications/notifications.routes.ts';
import { signaturesRoutes } from './features/signatures/signatures.routes.ts';
import { signingRoutes } from './features/signing/signing.routes.ts';
import { systemRoutes } from './features/system/system.routes.ts';
import { openApiRoutes } from './features/system/openapi.routes.ts';
import { apiKeysRoutes } from './features/integrations/api-keys.routes.ts';
import { titleCompaniesRoutes } from './features/title-companies/title-companies.routes.ts';
import { webhooksRoutes } from './features/integrations/webhooks.routes.ts';
import { adminUsersRoutes } from './features/users/admin-users.routes.ts';
import { usersRoutes } from './features/users/users.routes.ts';
import { recordingPlaybackRoutes } from './features/video/recording/recording-playback.routes.ts';
import { videoJobRoutes, videoRoutes } from './features/video/video.routes.ts';

/**
 * Every group of API routes and the path it lives under, in the order they are registered. Each
 * route declares who may call it (config.access); buildApp refuses one that does not.
 */
export const apiRouteTable: ReadonlyArray<{ prefix: string; routes: FastifyPluginAsyncZod }> = [
  { prefix: '/api/system', routes: systemRoutes },
  { prefix: '/api', routes: openApiRoutes },
  { prefix: '/api/auth', routes: authRoutes },
  { prefix: '/api/auth', routes: mfaRoutes },
  { prefix: '/api/auth', routes: emailCodeRoutes },
  { prefix: '/api/admin/users', routes: usersRoutes },
  { prefix: '/api/admin/users', routes: adminUsersRoutes },
  { prefix: '/api/admin/users', routes: identityAdminRoutes },
  { prefix: '/api/admin/users', routes: notaryCertificateAdminRoutes },
  { prefix: '/api/admin/mail', routes: mailRoutes },
  { prefix: '/api/admin/pricing', routes: pricingRoutes },
  { prefix: '/api/billing', routes: billingRoutes },
  { prefix: '/api/jobs', routes: jobsRoutes },
  { prefix: '/api/jobs', routes: documentsRoutes },
  { prefix: '/api/jobs', routes: safeViewerLinkRoutes },
  { prefix: '/api/jobs', routes: fieldsRoutes },
  { prefix: '/api/jobs', routes: signingRoutes },
  { prefix: '/api/jobs', routes: notarizationRoutes },
  { prefix: '/api/jobs', routes: videoJobRoutes },
  { prefix: '/api/jobs', routes: recordingPlaybackRoutes },
  { prefix: '/api/jobs', routes: identityJobRoutes },
  { prefix: '/api/jobs', routes: jobChargesRoutes },
  { prefix: '/api/jobs', routes: jobPaymentRoutes },
  { prefix: '/api/payments', routes: paymentsRoutes },
  { prefix: '/api/notifications', routes: notificationsRoutes },
  { prefix: '/api/safe-viewer', routes: safeViewerRoutes },
  { prefix: '/api/verify', routes: verifyRoutes },
  { prefix: '/api/invites', routes: invitesRoutes },
  { prefix: '/api/invites', routes: emailInvitationsRoutes },
  { prefix: '/api/notary', routes: notariesRoutes },
  { prefix: '/api/title-companies', routes: titleCompaniesRoutes },
  { prefix: '/api/title-companies', routes: webhooksRoutes },
  { prefix: '/api/title-companies', routes: apiKeysRoutes },
  { prefix: '/api', routes: signaturesRoutes },
  { prefix: '/api/video', routes: videoRoutes },
  { prefix: '/api/identity', routes: identityRoutes },
  { prefix: '/api/notary-log', routes: journalRoutes },
  { prefix: '/api/notary-log/archives', routes: archiveRoutes },
  { prefix: '/api/notary-availability', routes: notaryAvailabilityRoutes },
  { prefix: '/api/availability', routes: availabilityRoutes },
  { prefix: '/api/gnw', routes: gnwRoutes },
  { prefix: '/api/gnw', routes: gnwMatchingRoutes },
  { prefix: '/api/gnw', routes: gnwScheduleRoutes },
  { prefix: '/api/calendar', routes: calendarRoutes },
  { prefix: '/api/google/events', routes: calendarEventRoutes },
];
