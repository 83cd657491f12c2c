/** Query keys of the public verification of a notarized document, by the id in the address. */
export const verificationKeys = {
  byId: (id: string) => ['verify', id] as const,
  platformCaFingerprint: () => ['verify', 'platform-ca-fingerprint'] as const,
};

/** The platform CA's SHA-256 fingerprint ("AB:CD:…"), hashed in the browser from the certificate the server publishes. */
export async function fetchPlatformCaFingerprint(): Promise<string> {
  const response = await fetch('/pki/ca.crt');
  if (!response.ok) throw new Error(`The platform certificate could not be read (HTTP ${response.status}).`);
  const digest = await crypto.subtle.digest('SHA-256', await response.arrayBuffer());
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0').toUpperCase()).join(':');
}
