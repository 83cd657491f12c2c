import { documentListSchema } from '#shared/documents.ts';
import { gnwActiveSchema, gnwLanes, type CreateGnwJobInput, type GnwJob, type GnwLane } from '#shared/gnw.ts';
import { notarizationTypeSchema } from '#shared/jobs.ts';
import { gnwApi } from '#web/api/gnw.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';
import { clearWizardSeed, readSeedFiles, readWizardSeed, type WizardSeed } from './seed-store.ts';

/**
 * /gnw/start (decision 051): the person's active instant job, or a new one from the wizard seed
 * with the files they chose before signing in uploaded to it; then the seed is spent.
 */
export interface StartDeps {
  getActiveJob: () => Promise<GnwJob | null>;
  createJob: (input: CreateGnwJobInput) => Promise<GnwJob>;
  readSeed: () => WizardSeed | null;
  readFiles: () => Promise<File[]>;
  uploadFiles: (jobId: string, files: File[], onProgress: (fraction: number) => void) => Promise<unknown>;
  clearSeed: () => void;
}

export const browserStartDeps: StartDeps = {
  getActiveJob: async () => (await api.get('/api/gnw/active', gnwActiveSchema)).job,
  createJob: gnwApi.createJob,
  readSeed: () => readWizardSeed(),
  readFiles: () => readSeedFiles().catch(() => []),
  uploadFiles: (jobId, files, onProgress) => {
    const form = new FormData();
    for (const file of files) form.append('files', file, file.name);
    return api.upload(`/api/jobs/${encodeURIComponent(jobId)}/documents/batch`, form, onProgress, documentListSchema);
  },
  clearSeed: clearWizardSeed,
};

/** What to create from the seed: its lane and act when they are ones the server knows. */
export function toCreateInput(seed: WizardSeed | null): CreateGnwJobInput {
  const lane: GnwLane = seed && (gnwLanes as readonly string[]).includes(seed.lane) ? (seed.lane as GnwLane) : 'instant';
  const act = notarizationTypeSchema.safeParse(seed?.form.act);
  const title = seed?.form.title?.trim().slice(0, 200);
  return { lane, ...(act.success ? { act: act.data } : {}), ...(title ? { title } : {}) };
}

/** The job id a 409 gnw_active_job names (its detail, or the body itself). */
export function readActiveJobId(error: ApiError): string | null {
  const data = error.data as { jobId?: unknown; detail?: { jobId?: unknown } } | null;
  const jobId = data?.detail?.jobId ?? data?.jobId;
  return typeof jobId === 'string' && jobId ? jobId : null;
}

export type StartPhase = 'checking' | 'creating' | 'uploading';

/**
 * Resumes the active job or starts one, uploading the kept files once the job exists (to a job
 * still in setup only: files are never added to one already past it), then spends the seed.
 */
export async function startGnwJob(
  deps: StartDeps,
  report: { onPhase?: (phase: StartPhase) => void; onProgress?: (fraction: number) => void } = {},
): Promise<{ jobId: string; uploaded: number; keptFiles: number }> {
  report.onPhase?.('checking');
  const seed = deps.readSeed();
  let job = await deps.getActiveJob();
  let jobId = job?.jobId ?? null;
  if (!jobId) {
    report.onPhase?.('creating');
    try {
      job = await deps.createJob(toCreateInput(seed));
      jobId = job.jobId;
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'gnw_active_job') throw error;
      // Started on another tab or device a moment ago: continue that one.
      job = await deps.getActiveJob();
      jobId = readActiveJobId(error) ?? job?.jobId ?? null;
      if (!jobId) throw error;
    }
  }
  const files = await deps.readFiles();
  if (files.length > 0 && !(job?.jobId === jobId && job.status === 'setup')) {
    // A job past setup takes no more files: they stay kept (an hour at most) for the next job.
    return { jobId, uploaded: 0, keptFiles: files.length };
  }
  if (files.length > 0) {
    report.onPhase?.('uploading');
    await deps.uploadFiles(jobId, files, (fraction) => report.onProgress?.(fraction));
  }
  deps.clearSeed();
  return { jobId, uploaded: files.length, keptFiles: 0 };
}
