/** Query keys of a notary's availability: the dashboard's on-line status and the weekly slots share the root. */
export const availabilityKeys = {
  all: ['availability'] as const,
  status: () => [...availabilityKeys.all, 'status'] as const,
  slots: () => [...availabilityKeys.all, 'slots'] as const,
};
