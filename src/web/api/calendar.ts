import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { calendarEventSchema, calendarFeedSchema, calendarSchema, type CreateCalendarEventInput, type UpdateCalendarEventInput } from '#shared/calendar.ts';
import { api } from '#web/lib/api.ts';

export const calendarKeys = {
  all: ['calendar'] as const,
  range: (from: string, to: string, timeZone: string) => [...calendarKeys.all, 'range', from, to, timeZone] as const,
  feed: () => [...calendarKeys.all, 'feed'] as const,
};

export function useCalendar(from: string, to: string, timeZone: string) {
  const query = new URLSearchParams({ from, to, timeZone }).toString();
  return useQuery({ queryKey: calendarKeys.range(from, to, timeZone), queryFn: () => api.get(`/api/calendar?${query}`, calendarSchema) });
}

export function useCalendarFeed() {
  return useQuery({ queryKey: calendarKeys.feed(), queryFn: () => api.get('/api/calendar/feed', calendarFeedSchema) });
}

/** Every calendar change refreshes the views and the feed's state. */
function useCalendarMutation<TInput, TResult>(mutationFn: (input: TInput) => Promise<TResult>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn, onSettled: () => queryClient.invalidateQueries({ queryKey: calendarKeys.all }) });
}

export const useCreateEvent = () => useCalendarMutation((input: CreateCalendarEventInput) => api.post('/api/google/events', input, calendarEventSchema));
export const useUpdateEvent = () =>
  useCalendarMutation(({ id, input }: { id: string; input: UpdateCalendarEventInput }) => api.patch(`/api/google/events/${id}`, input, calendarEventSchema));
export const useDeleteEvent = () => useCalendarMutation((id: string) => api.delete(`/api/google/events/${id}`));
export const useMakeFeed = () => useCalendarMutation(() => api.post('/api/calendar/feed', undefined, calendarFeedSchema));
export const useRevokeFeed = () => useCalendarMutation(() => api.delete('/api/calendar/feed', calendarFeedSchema));
