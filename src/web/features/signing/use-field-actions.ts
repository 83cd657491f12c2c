import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { documentSchema } from '#shared/documents.ts';
import { fieldSchema, notarizedListSchema, type DocumentField, type FieldType, type Placement } from '#shared/fields.ts';
import { jobKeys } from '#web/api/jobs.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';

export interface NewField extends Placement {
  type: FieldType;
  page: number;
  participantId: string | null;
  isOnEveryPage: boolean;
}

/** Every change the workspace makes to fields, documents and the job; each refreshes the job's data. */
export function useFieldActions(jobId: string, documentId: string | null) {
  const queryClient = useQueryClient();
  const refresh = useCallback(() => queryClient.invalidateQueries({ queryKey: jobKeys.detail(jobId) }), [queryClient, jobId]);
  const addField = useMutation({
    mutationFn: (field: NewField) => api.post(`/api/jobs/${jobId}/documents/${documentId}/fields`, field, fieldSchema),
    onSettled: refresh,
  });
  const moveField = useMutation({
    mutationFn: ({ field, placement }: { field: DocumentField; placement: Placement }) =>
      api.patch(`/api/jobs/${jobId}/documents/${field.documentId}/fields/${field.id}`, { ...placement, version: field.version }, fieldSchema),
    onSettled: refresh,
  });
  const deleteField = useMutation({
    mutationFn: (field: DocumentField) => api.delete(`/api/jobs/${jobId}/documents/${field.documentId}/fields/${field.id}`),
    onSettled: refresh,
  });
  const fillField = useMutation({
    mutationFn: ({ field, value }: { field: DocumentField; value?: string }) =>
      api.post(
        `/api/jobs/${jobId}/documents/${field.documentId}/fields/${field.id}/fill`,
        { value, version: field.version, timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone },
        fieldSchema,
      ),
    onSettled: refresh,
  });
  const completeDocument = useMutation({
    mutationFn: () => api.post(`/api/jobs/${jobId}/documents/${documentId}/complete`, undefined, documentSchema),
    onSettled: refresh,
  });
  const completeJob = useMutation({
    mutationFn: async () => {
      try {
        return await api.post(`/api/jobs/${jobId}/complete-job`, undefined, notarizedListSchema);
      } catch (caught) {
        if (caught instanceof ApiError && caught.status === 404) return api.post(`/api/jobs/${jobId}/merge-documents`, undefined, notarizedListSchema);
        throw caught;
      }
    },
    onSettled: refresh,
  });
  return { refresh, addField, moveField, deleteField, fillField, completeDocument, completeJob };
}
