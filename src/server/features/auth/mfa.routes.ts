import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { loginResponseSchema } from '#shared/auth.ts';
import {
  backupCodesSchema,
  emailCodeRequestSchema,
  emailCodeVerifyInputSchema,
  mfaStatusSchema,
  mfaVerifyInputSchema,
  totpSetupStartSchema,
  totpSetupVerifyInputSchema,
  totpSetupVerifyResponseSchema,
  twoFactorVerifyInputSchema,
} from '#shared/mfa.ts';
import type { Config } from '#server/config.ts';
import { clearDeviceCookie, setDeviceCookie, setSessionCookie } from '#server/lib/http.ts';
import {
  generateBackupCodes,
  getMfaStatus,
  requestEmailCode,
  revokeTrustedDevices,
  startTotpSetup,
  verifyEmailCode,
  verifySecondFactor,
  verifyTotpSetup,
  verifyTwoFactorTicket,
  type SecondFactorResult,
} from './mfa.service.ts';

/** Sets the new full-session cookie (and the device cookie when remembered) and answers like login. */
function sendSignedIn(reply: FastifyReply, config: Config, result: SecondFactorResult) {
  setSessionCookie(reply, config, result.token, result.expiresAt);
  if (result.device) setDeviceCookie(reply, config, result.device.token, result.device.expiresAt);
  return result.response;
}

const mfa = 'mfa' as const;

export const mfaRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/mfa/status', { config: { access: mfa }, schema: { response: { 200: mfaStatusSchema } } }, async (request) => getMfaStatus(request.ctx));

  app.post('/mfa/totp/setup/start', { config: { access: mfa }, schema: { response: { 200: totpSetupStartSchema } } }, async (request) =>
    startTotpSetup(request.ctx),
  );

  app.post(
    '/mfa/totp/setup/verify',
    { config: { access: mfa }, schema: { body: totpSetupVerifyInputSchema, response: { 200: totpSetupVerifyResponseSchema } } },
    async (request, reply) => {
      const completed = await verifyTotpSetup(request.ctx, request.body.token, request.body.rememberDevice);
      return { ok: true as const, completedSignIn: completed ? sendSignedIn(reply, request.ctx.config, completed) : null };
    },
  );

  app.post('/mfa/verify', { config: { access: mfa }, schema: { body: mfaVerifyInputSchema, response: { 200: loginResponseSchema } } }, async (request, reply) =>
    sendSignedIn(reply, request.ctx.config, await verifySecondFactor(request.ctx, request.body)),
  );

  app.post('/mfa/backup/generate', { config: { access: 'signed-in' }, schema: { response: { 200: backupCodesSchema } } }, async (request) => ({
    codes: await generateBackupCodes(request.ctx),
  }));

  app.post('/mfa/email/request', { config: { access: mfa }, schema: { response: { 200: emailCodeRequestSchema } } }, async (request) =>
    requestEmailCode(request.ctx),
  );

  app.post(
    '/mfa/email/verify',
    { config: { access: mfa }, schema: { body: emailCodeVerifyInputSchema, response: { 200: loginResponseSchema } } },
    async (request, reply) => sendSignedIn(reply, request.ctx.config, await verifyEmailCode(request.ctx, request.body.code, request.body.rememberDevice)),
  );

  app.delete(
    '/mfa/devices',
    { config: { access: 'signed-in' }, schema: { response: { 200: z.object({ revoked: z.number().int() }) } } },
    async (request, reply) => {
      const revoked = await revokeTrustedDevices(request.ctx, request.ctx.user?.id ?? '');
      clearDeviceCookie(reply, request.ctx.config);
      return { revoked };
    },
  );

  app.post(
    '/2fa/verify',
    { config: { access: 'public' }, schema: { body: twoFactorVerifyInputSchema, response: { 200: loginResponseSchema } } },
    async (request, reply) =>
      sendSignedIn(reply, request.ctx.config, await verifyTwoFactorTicket(request.ctx, request.body.ticket, request.body.code, request.body.rememberDevice)),
  );
};
