import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { documentListSchema } from '#shared/documents.ts';
import { jobListSchema, jobNotarizationTypesSchema, jobSchema, type CreateJobInput, type JobListQuery } from '#shared/jobs.ts';
import { api } from '#web/lib/api.ts';

export const notarizationTypeListSchema = z.object({ items: z.array(z.object({ key: z.string(), label: z.string(), description: z.string() })) });

/**
 * Every query key of the jobs domain. What is read about one job sits under that job's detail key,
 * so invalidating `detail(id)` refreshes the job itself and all of its parts at once, and
 * invalidating `all` refreshes every job.
 */
export const jobKeys = {
  all: ['jobs'] as const,
  lists: () => [...jobKeys.all, 'list'] as const,
  list: (params: string) => [...jobKeys.lists(), params] as const,
  detail: (jobId: string | null) => [...jobKeys.all, 'detail', jobId] as const,
  documents: (jobId: string) => [...jobKeys.detail(jobId), 'documents'] as const,
  fields: (jobId: string, documentId: string) => [...jobKeys.detail(jobId), 'fields', documentId] as const,
  acts: (jobId: string) => [...jobKeys.detail(jobId), 'notarization-types'] as const,
  signingAssets: (jobId: string) => [...jobKeys.detail(jobId), 'signing-assets'] as const,
  notarized: (jobId: string) => [...jobKeys.detail(jobId), 'notarized'] as const,
  audit: (jobId: string) => [...jobKeys.detail(jobId), 'audit'] as const,
  recordings: (jobId: string) => [...jobKeys.detail(jobId), 'recordings'] as const,
  identity: (jobId: string) => [...jobKeys.detail(jobId), 'identity'] as const,
  canEnter: (jobId: string) => [...jobKeys.detail(jobId), 'can-enter'] as const,
  videoSession: (jobId: string, sessionId: string) => [...jobKeys.detail(jobId), 'video-session', sessionId] as const,
  videoMap: (jobId: string, sessionId: string, roomKey: string) => [...jobKeys.detail(jobId), 'video-map', sessionId, roomKey] as const,
  /** The invitation a person may accept: outside the job's detail key, since the job itself answers 404 until then. */
  invitation: (jobId: string | null) => [...jobKeys.all, 'invitation', jobId] as const,
  notarizationTypes: () => ['notarization-types'] as const,
};

/** The query string of GET /api/jobs for the filters given, with the first page of 20 by default. */
function jobListParams(query: JobListQuery) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ page: 1, pageSize: 20, ...query })) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  return params.toString();
}

/** GET /api/jobs with the filters given (see jobListQuerySchema); `enabled` false waits. */
export function useJobs(query: JobListQuery, options: { enabled?: boolean } = {}) {
  const params = jobListParams(query);
  return useQuery({
    queryKey: jobKeys.list(params),
    queryFn: () => api.get(`/api/jobs?${params}`, jobListSchema),
    placeholderData: (previous) => previous,
    enabled: options.enabled ?? true,
  });
}

export function jobQueryOptions(jobId: string | null) {
  return queryOptions({ queryKey: jobKeys.detail(jobId), queryFn: () => api.get(`/api/jobs/${jobId}`, jobSchema), enabled: Boolean(jobId), retry: false });
}

export function useJob(jobId: string | null) {
  return useQuery(jobQueryOptions(jobId));
}

/** The job's documents in signing order (the workspace, the documents panel and the room read the same list). */
export function useJobDocuments(jobId: string) {
  return useQuery({ queryKey: jobKeys.documents(jobId), queryFn: () => api.get(`/api/jobs/${jobId}/documents`, documentListSchema) });
}

export function useNotarizationTypes() {
  return useQuery({
    queryKey: jobKeys.notarizationTypes(),
    queryFn: () => api.get('/api/jobs/notarization-types', notarizationTypeListSchema),
    staleTime: Infinity,
  });
}

/** The acts this job may use and how its signers may be identified (its notary's state and its people). */
export function useJobNotarizationTypes(jobId: string) {
  return useQuery({ queryKey: jobKeys.acts(jobId), queryFn: () => api.get(`/api/jobs/${jobId}/notarization-types`, jobNotarizationTypesSchema) });
}

export function useCreateJob() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateJobInput) => api.post('/api/jobs', input, jobSchema),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: jobKeys.all }),
  });
}

/** Any job mutation: refreshes the job, its documents and its audit trail afterwards. */
export function useJobMutation<TInput>(mutationFn: (input: TInput) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSettled: () => queryClient.invalidateQueries({ queryKey: jobKeys.all }),
  });
}
