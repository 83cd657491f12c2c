import { queryOptions } from '@tanstack/react-query';
import { z } from 'zod';
import {
  emailCodeStartSchema,
  gnwActiveSchema,
  gnwEstimateSchema,
  gnwFinalizeSchema,
  gnwJobSchema,
  gnwLoopSchema,
  gnwOfferAnswerSchema,
  gnwOffersSchema,
  gnwSlotsSchema,
  type CreateGnwJobInput,
  type GnwBookInput,
  type GnwCancelInput,
  type GnwEstimateInput,
  type GnwPreauthInput,
  type GnwSlotsInput,
  type UpdateGnwJobInput,
} from '#shared/gnw.ts';
import { loginResponseSchema } from '#shared/auth.ts';
import { api } from '#web/lib/api.ts';

/** Notarize Now (decision 051): the calls of the wizard, the notary's offers and the loop test page. */
export const gnwKeys = {
  all: ['gnw'] as const,
  active: () => [...gnwKeys.all, 'active'] as const,
  job: (jobId: string) => [...gnwKeys.all, 'job', jobId] as const,
  offers: () => [...gnwKeys.all, 'offers'] as const,
  loop: (state: string | null, act: string) => [...gnwKeys.all, 'loop', state, act] as const,
};

const jobPath = (jobId: string) => `/api/gnw/jobs/${encodeURIComponent(jobId)}`;

/** GET /api/gnw/active: the person's active instant job, if any. */
export function gnwActiveQueryOptions() {
  return queryOptions({ queryKey: gnwKeys.active(), queryFn: () => api.get('/api/gnw/active', gnwActiveSchema), retry: false });
}

/** GET /api/gnw/jobs/{jobId}: refetched often while a notary is being found. */
export function gnwJobQueryOptions(jobId: string) {
  return queryOptions({
    queryKey: gnwKeys.job(jobId),
    queryFn: () => api.get(jobPath(jobId), gnwJobSchema),
    retry: false,
    refetchInterval: (query) => (query.state.data?.status === 'searching' ? 2_000 : query.state.data?.status === 'matched' ? 5_000 : false),
  });
}

/** GET /api/gnw/offers: the offers ringing at the signed-in notary or witness. */
export function gnwOffersQueryOptions() {
  return queryOptions({ queryKey: gnwKeys.offers(), queryFn: () => api.get('/api/gnw/offers', gnwOffersSchema), refetchInterval: 5_000, retry: false });
}

/** GET /api/gnw/loop: the administrators' view of the matching loop. */
export function gnwLoopQueryOptions(state: string | null, act: string) {
  const query = new URLSearchParams({ act });
  if (state) query.set('state', state);
  return queryOptions({
    queryKey: gnwKeys.loop(state, act),
    queryFn: () => api.get(`/api/gnw/loop?${query.toString()}`, gnwLoopSchema),
    refetchInterval: 3_000,
    retry: false,
  });
}

export const gnwApi = {
  estimate: (input: GnwEstimateInput) => api.post('/api/gnw/estimate', input, gnwEstimateSchema),
  createJob: (input: CreateGnwJobInput) => api.post('/api/gnw/jobs', input, gnwJobSchema),
  getJob: (jobId: string) => api.get(jobPath(jobId), gnwJobSchema),
  updateJob: (jobId: string, input: UpdateGnwJobInput) => api.put(jobPath(jobId), input, gnwJobSchema),
  preauth: (input: GnwPreauthInput) => api.post('/api/gnw/preauth', input, gnwJobSchema),
  instant: (jobId: string) => api.post('/api/gnw/instant', { jobId }, gnwJobSchema),
  switchToScheduled: (jobId: string) => api.post('/api/gnw/switch-to-scheduled', { jobId }, gnwJobSchema),
  slots: (input: GnwSlotsInput) => api.post('/api/gnw/schedule/slots', input, gnwSlotsSchema),
  book: (input: GnwBookInput) => api.post('/api/gnw/schedule/book', input, gnwJobSchema),
  cancel: (input: GnwCancelInput) => api.post('/api/gnw/cancel', input, gnwJobSchema),
  finalize: (jobId: string) => api.post('/api/gnw/finalize', { jobId }, gnwFinalizeSchema),
  acceptOffer: (offerId: string) => api.post(`/api/gnw/offers/${encodeURIComponent(offerId)}/accept`, {}, gnwOfferAnswerSchema),
  declineOffer: (offerId: string) => api.post(`/api/gnw/offers/${encodeURIComponent(offerId)}/decline`, {}, gnwOfferAnswerSchema),
  sendTestOffer: (notaryId: string) => api.post('/api/gnw/loop/test-offer', { notaryId }, z.object({ message: z.string() })),
  /** The notary's opt-in to administrators' test offers; the answer is not read (the availability status is fetched again). */
  setTestOffers: (accepts: boolean) => api.put('/api/availability/test-offers', { accepts }),
  startEmailCode: (input: { email: string; name?: string }) => api.post('/api/auth/email-code/start', input, emailCodeStartSchema),
  verifyEmailCode: (input: { email: string; code: string }) => api.post('/api/auth/email-code/verify', input, loginResponseSchema),
};
