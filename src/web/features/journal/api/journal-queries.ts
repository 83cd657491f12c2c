/** Query keys of the notary's journal: a change to any entry refreshes `all`, the drafts and the pages alike. */
export const journalKeys = {
  all: ['journal'] as const,
  drafts: (jobId: string) => [...journalKeys.all, 'drafts', jobId] as const,
  list: (params: string, page: number) => [...journalKeys.all, 'list', params, page] as const,
};
