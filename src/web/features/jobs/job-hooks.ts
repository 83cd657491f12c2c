import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { jobListSchema, jobSchema, notaryOptionListSchema, type CreateJobInput, type JobListQuery } from '#shared/jobs.ts';
import { api } from '#web/lib/api.ts';

export const notarizationTypeListSchema = z.object({ items: z.array(z.object({ key: z.string(), label: z.string(), description: z.string() })) });

/** GET /api/jobs with the filters given (see jobListQuerySchema); `enabled` false waits. */
export function useJobs(query: JobListQuery, options: { enabled?: boolean } = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ page: 1, pageSize: 20, ...query })) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  return useQuery({
    queryKey: ['jobs', 'list', params.toString()],
    queryFn: () => api.get(`/api/jobs?${params.toString()}`, jobListSchema),
    placeholderData: (previous) => previous,
    enabled: options.enabled ?? true,
  });
}

export function useJob(jobId: string | null) {
  return useQuery({ queryKey: ['jobs', 'detail', jobId], queryFn: () => api.get(`/api/jobs/${jobId}`, jobSchema), enabled: Boolean(jobId), retry: false });
}

export function useNotarizationTypes() {
  return useQuery({ queryKey: ['notarization-types'], queryFn: () => api.get('/api/jobs/notarization-types', notarizationTypeListSchema), staleTime: Infinity });
}

/** Approved notaries whose name, county or state match the search (GET /api/notary/lookup). */
export function useNotaryLookup(search: string, enabled: boolean) {
  const params = new URLSearchParams({ q: search.trim(), limit: '10' });
  return useQuery({
    queryKey: ['notary-options', params.toString()],
    queryFn: () => api.get(`/api/notary/lookup?${params.toString()}`, notaryOptionListSchema),
    enabled,
    retry: false,
    placeholderData: (previous) => previous,
  });
}

export function useCreateJob() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateJobInput) => api.post('/api/jobs', input, jobSchema),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['jobs'] }),
  });
}

/** Any job mutation: refreshes the job, its documents and its audit trail afterwards. */
export function useJobMutation<TInput>(mutationFn: (input: TInput) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['jobs'] }),
  });
}
