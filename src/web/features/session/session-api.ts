import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { canEnterSchema } from '#shared/jobs.ts';
import { documentListSchema } from '#shared/documents.ts';
import { joinSessionResultSchema, recordingSchema, videoSessionSchema } from '#shared/video.ts';
import { useLiveChannel } from '#web/features/signing/use-live-channel.ts';
import { api } from '#web/lib/api.ts';

/** While someone waits, the page also asks again this often (the live channel may be down). */
export const sessionRefetchMs = 5_000;

export const canEnterKey = (jobId: string) => ['jobs', jobId, 'can-enter'];
const sessionViewKey = (jobId: string, sessionId: string) => ['jobs', jobId, 'video-session', sessionId];

/** GET /api/jobs/{id}/can-enter: may I enter, why not, and where I stand in the open session. */
export function useCanEnter(jobId: string, options: { refetchMs?: number | false } = {}) {
  return useQuery({
    queryKey: canEnterKey(jobId),
    queryFn: () => api.get(`/api/jobs/${jobId}/can-enter`, canEnterSchema),
    retry: false,
    refetchInterval: options.refetchMs ?? false,
  });
}

/** The job's documents in signing order (the room opens on the first). */
export function useJobDocuments(jobId: string) {
  return useQuery({ queryKey: ['jobs', jobId, 'documents'], queryFn: () => api.get(`/api/jobs/${jobId}/documents`, documentListSchema) });
}

/** GET /api/video/session/{sid}: the notary's view of who waits and who is in. */
export function useVideoSession(jobId: string, sessionId: string) {
  return useQuery({
    queryKey: sessionViewKey(jobId, sessionId),
    queryFn: () => api.get(`/api/video/session/${sessionId}`, videoSessionSchema),
    refetchInterval: sessionRefetchMs,
    retry: false,
  });
}

/**
 * The job's live channel: a `video.changed` message (or any other job change) refreshes every
 * query under ['jobs'], can-enter and the notary's session view among them.
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

/** A notary's action on the session; the session view and can-enter are read again afterwards. */
export function useSessionAction<TInput>(jobId: string, action: (input: TInput) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: action, onSettled: () => queryClient.invalidateQueries({ queryKey: ['jobs', jobId] }) });
}

export const sessionCalls = {
  admit: (sessionId: string, participantId: string) => api.post(`/api/video/session/${sessionId}/participants/${participantId}/admit`, undefined, videoSessionSchema),
  deny: (sessionId: string, participantId: string) => api.post(`/api/video/session/${sessionId}/participants/${participantId}/deny`, undefined, videoSessionSchema),
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
