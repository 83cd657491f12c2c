import { useQueries } from '@tanstack/react-query';
import { fieldListSchema, type DocumentField } from '#shared/fields.ts';
import { jobKeys } from '#web/api/jobs.ts';
import { api } from '#web/lib/api.ts';

export interface JobField {
  field: DocumentField;
  documentName: string;
}

/** The fields of every document of the job (the live channel refreshes each document's list). */
export function useJobFields(jobId: string, documents: ReadonlyArray<{ id: string; name: string }>): JobField[] {
  const results = useQueries({
    queries: documents.map((document) => ({
      queryKey: jobKeys.fields(jobId, document.id),
      queryFn: () => api.get(`/api/jobs/${jobId}/documents/${document.id}/fields`, fieldListSchema),
    })),
  });
  return documents.flatMap((document, index) => (results[index]?.data?.items ?? []).map((field) => ({ field, documentName: document.name })));
}
