/** Query keys of the public verification of a notarized document, by the id in the address. */
export const verificationKeys = {
  byId: (id: string) => ['verify', id] as const,
};
