import { and, eq } from 'drizzle-orm';
import type { KbaAnswersInput, KbaQuestions, KbaResult } from '#shared/identity.ts';
import type { IdentityPolicy } from '#shared/identity-policies.ts';
import { identityKbaAttempts } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, conflict } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { createIdentityDataProvider, type IdentityDataProvider } from '#server/providers/identity/identity-data-provider.ts';
import { openForOwner, readStatement, settleStatus, toCheck, toRecord, type AttemptRow } from '../check-rows.ts';
import { chooseQuestionKeys, kbaStanding, scoreAttempt } from './kba-rules.ts';

/** The knowledge-based questions: a timed quiz from the identity-data provider, scored by the server. */

/** One provider per configuration (an app's config object), built on first use. */
const providers = new WeakMap<Ctx['config'], IdentityDataProvider>();
function identityDataProvider(ctx: Pick<Ctx, 'config'>): IdentityDataProvider {
  const known = providers.get(ctx.config);
  if (known) return known;
  try {
    const created = createIdentityDataProvider({ NODE_ENV: ctx.config.nodeEnv, IDENTITY_DEV_PROVIDER: ctx.config.identity.developmentProvider ?? undefined });
    providers.set(ctx.config, created);
    return created;
  } catch (error) {
    throw new AppError(503, 'identity_provider_unavailable', error instanceof Error ? error.message : 'No identity-data provider is configured.');
  }
}

function toQuestions(row: AttemptRow, policy: IdentityPolicy, notice: string | null): KbaQuestions {
  return {
    attemptId: row.id,
    attempt: row.attempt,
    deadlineAt: row.deadlineAt.toISOString(),
    timeLimitSeconds: policy.kba.timeLimitSeconds,
    questions: (row.quiz ?? []).map((question) => ({ id: question.key, prompt: question.prompt, choices: question.choices })),
    providerNotice: notice,
  };
}

/** Picks the quiz: enough new questions against the previous quiz and, for a later retake, the first one of the cycle. */
function pickQuestionKeys(policy: IdentityPolicy, pool: string[], previous: AttemptRow[]): string[] {
  const last = previous.at(-1)?.questionKeys ?? null;
  const first = previous[0]?.questionKeys ?? null;
  const neededAgainstFirst = first ? Math.ceil((policy.kba.minReplacedPercent * first.length) / 100 - 1e-9) : 0;
  for (let tries = 0; tries < 50; tries += 1) {
    const keys = chooseQuestionKeys(policy.kba, pool, last, Math.random);
    if (!first || keys.filter((key) => !first.includes(key)).length >= neededAgainstFirst) return keys;
  }
  throw new AppError(
    503,
    'identity_provider_unavailable',
    'Not enough different questions are available for another try. Ask the notary about another way to prove your identity.',
  );
}

/**
 * GET /api/identity/{checkId}/kba/questions: starts a timed quiz (or shows the open one again, with
 * its deadline unchanged: a reload does not restart the clock). Refused when the policy allows no
 * quiz now (passed, locked, retake window over), with the reason.
 */
export async function startKbaQuiz(ctx: Ctx, checkId: string, resumeToken: string | null): Promise<KbaQuestions> {
  const dataProvider = identityDataProvider(ctx);
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await openForOwner(txCtx, checkId, resumeToken);
    const now = new Date();
    const notice = dataProvider.notice;
    const standing = kbaStanding(access.policy.kba, access.attempts.map(toRecord), now);
    const open = access.attempts.find((attempt) => attempt.attempt === standing.openAttempt?.attempt && attempt.submittedAt === null);
    if (open) return toQuestions(open, access.policy, notice);
    if (!standing.canStart) throw conflict(standing.reason ?? 'No new questions can be asked now.');
    const person = readStatement(ctx, access.check);
    const pool = await dataProvider.questionPool(person, access.policy.kba.choicesPerQuestion);
    // The retake rules count within the current cycle (attempts since the last lockout ended).
    const cycle = access.attempts.slice(Math.max(0, access.attempts.length - standing.attemptsUsed));
    const keys = pickQuestionKeys(
      access.policy,
      pool.map((question) => question.key),
      cycle,
    );
    const quiz = keys.map((key) => pool.find((question) => question.key === key)).filter((question) => question !== undefined);
    const attemptNumber = (access.attempts.at(-1)?.attempt ?? 0) + 1;
    const [row] = await tx
      .insert(identityKbaAttempts)
      .values({
        checkId,
        attempt: attemptNumber,
        provider: dataProvider.name,
        questionKeys: keys,
        quiz,
        startedAt: now,
        deadlineAt: new Date(now.getTime() + access.policy.kba.timeLimitSeconds * 1000),
      })
      .returning();
    if (!row) throw new Error('quiz was not saved');
    await appendAuditEvent(txCtx, {
      jobId: access.job.id,
      action: 'identity.kba_started',
      data: { checkId, name: access.participant.name, attempt: attemptNumber, questions: keys.length, provider: dataProvider.name },
    });
    return toQuestions(row, access.policy, notice);
  });
}

/** POST /api/identity/{checkId}/kba/answers: scored by the server against its key; the answers are not kept. */
export async function answerKbaQuiz(ctx: Ctx, checkId: string, resumeToken: string | null, input: KbaAnswersInput): Promise<KbaResult> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    // Only an open check takes answers: not one ended, decided by the notary, or of a closed job.
    const access = await openForOwner(txCtx, checkId, resumeToken);
    const now = new Date();
    const [attempt] = await tx
      .select()
      .from(identityKbaAttempts)
      .where(and(eq(identityKbaAttempts.id, input.attemptId), eq(identityKbaAttempts.checkId, checkId)))
      .limit(1);
    if (!attempt) throw new AppError(404, 'not_found', 'Those questions are not part of this identity check.');
    if (attempt.submittedAt || !attempt.quiz) throw conflict('These questions were already answered. Ask for new ones if you may try again.');
    const key = attempt.quiz.map((question) => ({ questionKey: question.key, correctChoiceId: question.correctChoiceId }));
    const score = scoreAttempt(
      access.policy.kba,
      key,
      input.answers.map((answer) => ({ questionKey: answer.questionId, choiceId: answer.choiceId })),
      now,
      attempt.deadlineAt,
    );
    await tx
      .update(identityKbaAttempts)
      .set({ submittedAt: now, passed: score.passed, timedOut: score.timedOut, correct: score.correct, total: score.total, quiz: null })
      .where(eq(identityKbaAttempts.id, attempt.id));
    await appendAuditEvent(txCtx, {
      jobId: access.job.id,
      action: 'identity.kba_answered',
      data: {
        checkId,
        name: access.participant.name,
        attempt: attempt.attempt,
        correct: score.correct,
        total: score.total,
        passed: score.passed,
        timedOut: score.timedOut,
      },
    });
    const settled = await settleStatus(tx, access.check, access.policy, now);
    if (settled.check.status === 'ready' && access.check.status !== 'ready') {
      await appendAuditEvent(txCtx, { jobId: access.job.id, action: 'identity.ready', data: { checkId, name: access.participant.name } });
    }
    return { ...score, check: await toCheck(tx, access, settled.check, settled.attempts, now) };
  });
}
