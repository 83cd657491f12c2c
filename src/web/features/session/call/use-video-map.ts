import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { sharedVideoMapSchema, type VideoMapAssignment } from '#shared/video.ts';
import { jobKeys } from '#web/api/jobs.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';

/**
 * The shared video map of the session (decision 020). Read again every few seconds and whenever
 * the room changes (`roomKey`); the notary's change carries the version it was drawn from, and a
 * refusal for a stale version reloads the map and says so.
 */
export function useVideoMap(jobId: string, sessionId: string, roomKey: string) {
  const queryClient = useQueryClient();
  const queryKey = jobKeys.videoMap(jobId, sessionId, roomKey);
  const [notice, setNotice] = useState<string | null>(null);
  const map = useQuery({
    queryKey,
    queryFn: () => api.get(`/api/video/session/${sessionId}/shared-video-map`, sharedVideoMapSchema),
    refetchInterval: 10_000,
    placeholderData: (previous) => previous,
  });
  const change = useMutation({
    mutationFn: (assignments: VideoMapAssignment[]) =>
      api.post(`/api/video/session/${sessionId}/shared-video-map`, { assignments, version: map.data?.version ?? 0 }, sharedVideoMapSchema),
    onSuccess: (saved) => {
      setNotice(null);
      queryClient.setQueryData(queryKey, saved);
    },
    onError: async (error) => {
      const isStale =
        error instanceof ApiError &&
        error.status === 409 &&
        (error.data as { detail?: { currentVersion?: number } } | null)?.detail?.currentVersion !== undefined;
      setNotice(isStale ? 'Someone changed the layout at the same time. It has been reloaded: make your change again.' : error.message);
      await map.refetch();
    },
  });
  return {
    assignments: map.data?.assignments ?? [],
    notice,
    isSaving: change.isPending,
    move: (assignments: VideoMapAssignment[]) => change.mutate(assignments),
  };
}
