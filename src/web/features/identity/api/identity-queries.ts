import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import {
  identityCheckSchema,
  identityPoliciesResponseSchema,
  jobIdentityListSchema,
  kbaQuestionsSchema,
  kbaResultSchema,
  resumeLinkSchema,
  resumeTokenHeader,
  type DocumentType,
  type IdentityReviewInput,
  type IdentityStartInput,
  type KbaAnswersInput,
} from '#shared/identity.ts';
import type { IdentityPolicy } from '#shared/identity-policies.ts';
import { jobKeys } from '#web/api/jobs.ts';
import { api } from '#web/lib/api.ts';

/** The desktop asks for the check this often while the person works on their phone. */
export const phonePollMs = 3_000;

/**
 * How the identity calls reach the server: with the signed-in session (desktop), or from a phone
 * opened from a resume link, with the link's token in a header instead.
 */
export interface IdentityAccess {
  resumeToken: string | null;
}

const headersOf = (access: IdentityAccess): Record<string, string> | undefined =>
  access.resumeToken ? { [resumeTokenHeader]: access.resumeToken } : undefined;

/** Query keys of identity checks; the job's list of checks is a part of the job (jobKeys.identity). */
export const identityKeys = {
  all: ['identity'] as const,
  check: (checkId: string) => [...identityKeys.all, checkId] as const,
  policies: () => [...identityKeys.all, 'policies'] as const,
  resume: (token: string) => [...identityKeys.all, 'resume', token] as const,
};

export type CredentialPhotos = Partial<Record<'front' | 'back' | 'passport', Blob>>;

/** A Blob from the camera has no name: the server learns the type from the part's name and type. */
function fileOf(blob: Blob, name: string): Blob | File {
  if (blob instanceof File) return blob;
  const extension = blob.type === 'image/png' ? 'png' : blob.type === 'image/webp' ? 'webp' : 'jpg';
  return new File([blob], `${name}.${extension}`, { type: blob.type || 'image/jpeg' });
}

export const identityCalls = {
  start: (jobId: string, input: IdentityStartInput) => api.post(`/api/jobs/${jobId}/identity/start`, input, identityCheckSchema),
  getCheck: (checkId: string, access: IdentityAccess) =>
    api.request('GET', `/api/identity/${checkId}`, { schema: identityCheckSchema, headers: headersOf(access) }),
  getByResumeToken: (token: string) => api.get(`/api/identity/resume/${encodeURIComponent(token)}`, identityCheckSchema),
  /** Multipart: `documentType` first, then the photographs (front and back, or the passport page). */
  sendCredential: (checkId: string, documentType: DocumentType, photos: CredentialPhotos, onProgress: (fraction: number) => void, access: IdentityAccess) => {
    const form = new FormData();
    form.append('documentType', documentType);
    for (const side of ['front', 'back', 'passport'] as const) {
      const photo = photos[side];
      if (photo) form.append(side, fileOf(photo, side));
    }
    return api.upload(`/api/identity/${checkId}/credential`, form, onProgress, identityCheckSchema, headersOf(access));
  },
  sendSelfie: (checkId: string, selfie: Blob, onProgress: (fraction: number) => void, access: IdentityAccess) => {
    const form = new FormData();
    form.append('selfie', fileOf(selfie, 'selfie'));
    return api.upload(`/api/identity/${checkId}/selfie`, form, onProgress, identityCheckSchema, headersOf(access));
  },
  getQuestions: (checkId: string, access: IdentityAccess) =>
    api.request('GET', `/api/identity/${checkId}/kba/questions`, { schema: kbaQuestionsSchema, headers: headersOf(access) }),
  sendAnswers: (checkId: string, input: KbaAnswersInput, access: IdentityAccess) =>
    api.request('POST', `/api/identity/${checkId}/kba/answers`, { body: input, schema: kbaResultSchema, headers: headersOf(access) }),
  createResumeLink: (checkId: string) => api.post(`/api/identity/${checkId}/resume-link`, undefined, resumeLinkSchema),
  review: (checkId: string, input: IdentityReviewInput) => api.post(`/api/identity/${checkId}/review`, input, identityCheckSchema),
};

/** GET /api/identity/{checkId}; every few seconds while `pollMs` is set (the phone is working). */
export function useIdentityCheck(checkId: string | null, access: IdentityAccess, options: { pollMs?: number | false } = {}) {
  return useQuery({
    queryKey: identityKeys.check(checkId ?? ''),
    queryFn: () => identityCalls.getCheck(checkId ?? '', access),
    enabled: Boolean(checkId),
    retry: false,
    refetchInterval: options.pollMs ?? false,
  });
}

/** GET /api/jobs/{jobId}/identity: the notary's list of the people who must prove identity. */
export function useJobIdentity(jobId: string, options: { refetchMs?: number | false } = {}) {
  return useQuery({
    queryKey: jobKeys.identity(jobId),
    queryFn: () => api.get(`/api/jobs/${jobId}/identity`, jobIdentityListSchema),
    retry: false,
    refetchInterval: options.refetchMs ?? false,
  });
}

/**
 * The policy rows as the server sends them. The contract gives each row as a plain record: the
 * fields the help page reads are checked here, so a row missing one is refused with a sentence.
 */
const policyRowSchema = z.object({
  code: z.string(),
  name: z.string(),
  kba: z.object({
    questionCount: z.number(),
    choicesPerQuestion: z.number(),
    passPercent: z.number(),
    timeLimitSeconds: z.number(),
    retakes: z.number(),
    retakeWindowHours: z.number(),
    minReplacedPercent: z.number(),
    lockoutHours: z.number(),
    citation: z.string(),
  }),
  credentialAnalysisRequired: z.boolean(),
  credentialCitation: z.string(),
  selfieRequired: z.boolean(),
  selfieCitation: z.string(),
  journalForbidsIdNumber: z.boolean(),
  journalCitation: z.string().nullable(),
  retentionYears: z.number(),
  retentionCitation: z.string(),
  bypassMethods: z.array(z.enum(['personal_knowledge', 'credible_witness'])),
  bypassCitation: z.string(),
  witnessesProveIdentity: z.boolean(),
  redoOnRejoin: z.boolean(),
  validForHours: z.number(),
  recordingInterruption: z.object({ maxSeconds: z.number(), isPlatformRule: z.boolean(), requirement: z.string(), citation: z.string() }),
  actsNotPerformedOnline: z.array(z.object({ act: z.string(), citation: z.string() })),
}) satisfies z.ZodType<IdentityPolicy>;

const policiesSchema = identityPoliciesResponseSchema.extend({ items: z.array(policyRowSchema) });

/** GET /api/identity/policies (public): each state's identity rules with their citations. */
export function useIdentityPolicies() {
  return useQuery({ queryKey: identityKeys.policies(), queryFn: () => api.get('/api/identity/policies', policiesSchema), staleTime: 60 * 60_000 });
}
