import { gnwApi } from '#web/api/gnw.ts';
import { paths } from '#web/paths.ts';

/**
 * Where /setup?jobId&start (SPEC: resume) leads a signed-in person. Their own Notarize Now job goes
 * back into the wizard, /gnw/setup?jobId, which opens at the step the server keeps for it (on any
 * device); every other job (a title company's, or a Notarize Now job seen by its notary) goes to the
 * job's home with `start`, as before. Whether it is the person's own Notarize Now job is the server's
 * answer to GET /api/gnw/jobs/{jobId}, which answers only the person who asked for it.
 */
export async function findSetupPath(jobId: string, start: string | null, readGnwJob: (jobId: string) => Promise<unknown> = gnwApi.getJob): Promise<string> {
  try {
    await readGnwJob(jobId);
    return `${paths.gnwSetup}?jobId=${encodeURIComponent(jobId)}`;
  } catch {
    // Not theirs, not a Notarize Now job, or the server could not say: the job's home, which explains itself.
    return paths.jobDetail(jobId, start);
  }
}
