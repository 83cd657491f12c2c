/**
 * Query keys of the API's reference: the OpenAPI document the server generates from its route
 * schemas. Read only by the reference page, so its fetcher stays there (decision 039).
 */
export const apiReferenceKeys = {
  document: () => ['openapi'] as const,
};
