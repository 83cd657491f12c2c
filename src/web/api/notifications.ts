/** Query keys of the signed-in person's notifications: accepting an invitation refreshes them from another feature. */
export const notificationKeys = {
  all: ['notifications'] as const,
  pendingJobs: () => [...notificationKeys.all, 'pending-jobs'] as const,
};
