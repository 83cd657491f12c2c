import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  loginInputSchema,
  loginQuerySchema,
  loginResponseSchema,
  meResponseSchema,
  okMessageSchema,
  registerNotaryInputSchema,
  registerResponseSchema,
  registerTitleCompanyInputSchema,
  registerUserInputSchema,
  verifyEmailInputSchema,
} from '#shared/auth.ts';
import { forgotPasswordInputSchema, resetPasswordInputSchema } from '#shared/mfa.ts';
import { clearSessionCookie, readSessionTokens, setSessionCookie } from '#server/lib/http.ts';
import { getCurrentUser, logIn, logOut, register, type RegistrationCommand } from './auth.service.ts';
import { resendEmailVerification, verifyEmail } from './email-verification.service.ts';
import { requestPasswordReset, resetPassword, validateResetToken } from './password-reset.service.ts';

/** A missing (or null) email or password gets the same answer as an empty one. */
const loginBodySchema = z.preprocess((body) => {
  const record = body ?? {};
  if (typeof record !== 'object' || Array.isArray(record)) return record;
  const { email, password } = record as { email?: unknown; password?: unknown };
  return { ...record, email: email ?? '', password: password ?? '' };
}, loginInputSchema);

export const authRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/login',
    { config: { access: 'public' }, schema: { body: loginBodySchema, querystring: loginQuerySchema, response: { 200: loginResponseSchema } } },
    async (request, reply) => {
      const { response, signedIn } = await logIn(request.ctx, {
        ...request.body,
        jobId: request.body.jobId ?? request.query.jobId,
        signerId: request.body.signerId ?? request.query.signerId,
      });
      setSessionCookie(reply, request.ctx.config, signedIn.token, signedIn.expiresAt);
      return response;
    },
  );

  app.post('/logout', { config: { access: 'public' }, schema: { response: { 200: z.object({ ok: z.literal(true) }) } } }, async (request, reply) => {
    await logOut(request.ctx, readSessionTokens(request));
    clearSessionCookie(reply, request.ctx.config);
    return { ok: true as const };
  });

  app.get('/me', { config: { access: 'signed-in' }, schema: { response: { 200: meResponseSchema } } }, async (request) => ({
    user: getCurrentUser(request.ctx),
  }));

  const registrationKinds = [
    ['user', registerUserInputSchema],
    ['notary', registerNotaryInputSchema],
    ['title-company', registerTitleCompanyInputSchema],
  ] as const;
  for (const [kind, bodySchema] of registrationKinds) {
    app.post(
      `/register/${kind}`,
      { config: { access: 'public' }, schema: { body: bodySchema, response: { 201: registerResponseSchema } } },
      async (request, reply) => {
        const { response, signedIn } = await register(request.ctx, { kind, ...request.body } as RegistrationCommand);
        setSessionCookie(reply, request.ctx.config, signedIn.token, signedIn.expiresAt);
        return reply.code(201).send(response);
      },
    );
  }

  app.post(
    '/forgot-password',
    { config: { access: 'public' }, schema: { body: forgotPasswordInputSchema, response: { 200: okMessageSchema } } },
    async (request) => requestPasswordReset(request.ctx, request.body.email),
  );

  app.get(
    '/reset-password/validate',
    {
      config: { access: 'public' },
      schema: { querystring: z.object({ token: z.string().max(200).default('') }), response: { 200: z.object({ valid: z.literal(true) }) } },
    },
    async (request) => validateResetToken(request.ctx, request.query.token),
  );

  app.post(
    '/reset-password',
    { config: { access: 'public' }, schema: { body: resetPasswordInputSchema, response: { 200: okMessageSchema } } },
    async (request) => resetPassword(request.ctx, request.body.token, request.body.newPassword),
  );

  app.post('/verify-email', { config: { access: 'public' }, schema: { body: verifyEmailInputSchema, response: { 200: okMessageSchema } } }, async (request) =>
    verifyEmail(request.ctx, request.body.token),
  );

  app.post('/verify-email/resend', { config: { access: 'signed-in' }, schema: { response: { 200: okMessageSchema } } }, async (request) =>
    resendEmailVerification(request.ctx),
  );
};
