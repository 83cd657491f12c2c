import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { canEnterSchema } from '#shared/jobs.ts';
import { joinSessionResultSchema, recordingSchema, videoSessionSchema } from '#shared/video.ts';
import { jobKeys } from '#web/api/jobs.ts';
import { useLiveChannel } from '#web/api/live-channel.ts';
import { api } from '#web/lib/api.ts';

/** While someone waits, the page also asks again this often (the live channel may be down). */
export const sessionRefetchMs = 5_000;

/** GET /api/jobs/{id}/can-enter: may I enter, why not, and where I stand in the open session. */
export function canEnterQueryOptions(jobId: string) {
  return queryOptions({ queryKey: jobKeys.canEnter(jobId), queryFn: () => api.get(`/api/jobs/${jobId}/can-enter`, canEnterSchema), retry: false });
}

export function useCanEnter(jobId: string, options: { refetchMs?: number | false; enabled?: boolean } = {}) {
  return useQuery({
    ...canEnterQueryOptions(jobId),
    refetchInterval: options.refetchMs ?? false,
    enabled: options.enabled ?? true,
  });
}

/** GET /api/video/session/{sid}: the notary's view of who waits and who is in. */
export function useVideoSession(jobId: string, sessionId: string) {
  return useQuery({
    queryKey: jobKeys.videoSession(jobId, sessionId),
    queryFn: () => api.get(`/api/video/session/${sessionId}`, videoSessionSchema),
    refetchInterval: sessionRefetchMs,
    retry: false,
  });
}

/**
 * The job's live channel: a `video.changed` message (or any other job change) refreshes every
 * job query (jobKeys.all), can-enter and the notary's session view among them.
 */
export function useSessionLiveUpdates(jobId: string) {
  return useLiveChannel(jobId, ignoreView);
}
function ignoreView() {
  // The entry pages do not follow the notary's page; the room does.
}

/** POST /api/jobs/{id}/session/join with consent and this browser's device group. */
export function joinSession(jobId: string, deviceGroupId: string) {
  return api.post(`/api/jobs/${jobId}/session/join`, { consentToRecording: true, deviceGroupId }, joinSessionResultSchema);
}

/** The notary opens the job's session (or gets the open one), enters it and opens the room from this device. */
export async function openAndEnterAsNotary(jobId: string, deviceGroupId: string) {
  const session = await api.post('/api/video/session', { jobId }, videoSessionSchema);
  const joined = await joinSession(jobId, deviceGroupId);
  await api.post(`/api/video/session/${session.sessionId}/activate/${encodeURIComponent(deviceGroupId)}`, undefined, videoSessionSchema);
  return joined;
}

/**
 * A notary's action on the session. The step tells the person its outcome as soon as the server
 * answers; the controls stay busy until can-enter and the session view are read again, so a finished
 * step (a start) is never offered twice. The rest of the job refreshes behind them.
 */
export function useSessionAction(jobId: string) {
  const queryClient = useQueryClient();
  const [isBusy, setIsBusy] = useState(false);
  const perform = useCallback(
    async (step: () => Promise<void>) => {
      setIsBusy(true);
      try {
        await step();
      } finally {
        void queryClient.invalidateQueries({ queryKey: jobKeys.detail(jobId), exact: true });
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: jobKeys.canEnter(jobId) }),
          queryClient.invalidateQueries({ queryKey: [...jobKeys.detail(jobId), 'video-session'] }),
        ]);
        setIsBusy(false);
      }
    },
    [jobId, queryClient],
  );
  return { isBusy, perform };
}

export const sessionCalls = {
  admit: (sessionId: string, participantId: string) =>
    api.post(`/api/video/session/${sessionId}/participants/${participantId}/admit`, undefined, videoSessionSchema),
  deny: (sessionId: string, participantId: string) =>
    api.post(`/api/video/session/${sessionId}/participants/${participantId}/deny`, undefined, videoSessionSchema),
  start: (sessionId: string) => api.post(`/api/video/session/${sessionId}/start`, undefined, videoSessionSchema),
  finalize: (sessionId: string) => api.post(`/api/video/session/${sessionId}/finalize`, undefined, videoSessionSchema),
  startRecording: (sessionId: string) => api.post('/api/video/recording/start', { sessionId }, recordingSchema),
  stopRecording: (sessionId: string, recordingId: string) => api.post('/api/video/recording/stop', { sessionId, recordingId }, recordingSchema),
};

/** Where the room of a job is: its first document, or the job's room without one. */
export function roomPath(jobId: string, firstDocumentId: string | null | undefined) {
  return firstDocumentId ? `/session/${jobId}/${firstDocumentId}` : `/session/${jobId}`;
}

export function completePath(jobId: string) {
  return `/session/complete?jobId=${encodeURIComponent(jobId)}`;
}
