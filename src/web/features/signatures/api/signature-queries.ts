import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { signatureSchema, type SaveSignatureInput, type Signature, type SignatureKind } from '#shared/signatures.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';

export const signatureKeys = {
  all: ['signatures'] as const,
  mine: (kind: SignatureKind) => [...signatureKeys.all, kind, 'me'] as const,
};

/** The person's current signature or initials; null (not an error) when none is saved yet. */
export function useCurrentSignature(kind: SignatureKind) {
  return useQuery({
    queryKey: signatureKeys.mine(kind),
    queryFn: async (): Promise<Signature | null> => {
      try {
        return await api.get(`/api/${kind}/me`, signatureSchema);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
    retry: false,
  });
}

export function useSaveSignature(kind: SignatureKind) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: SaveSignatureInput) => api.post(`/api/${kind}`, input, signatureSchema),
    onSuccess: (saved) => queryClient.setQueryData(signatureKeys.mine(kind), saved),
  });
}
