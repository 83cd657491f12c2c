import dns from 'node:dns';
import net from 'node:net';
import { isNonPublicAddress } from '#server/lib/public-address.ts';

export { isNonPublicAddress };

/**
 * Where a webhook may go (decision 055): an https:// URL (http:// only when the operator allows it)
 * whose host resolves only to public addresses, unless the operator allows private ones. The check
 * runs at registration and before every send, and the send connects to the very address checked
 * (see webhook-sender.ts), so a name cannot resolve to a public address for the check and to a
 * private one for the connection.
 */
export interface AddressPolicy {
  /** http:// URLs are accepted (tests and closed networks only). */
  isHttpAllowed: boolean;
  /** Loopback, private, link-local and other non-public addresses are accepted. */
  isPrivateAllowed: boolean;
}

export interface CheckedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** A URL or address refused, with the sentence the caller sees. */
export class RefusedAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedAddressError';
  }
}

/** Reads a webhook URL by the policy's rules, before any name is resolved. */
export function parseWebhookUrl(raw: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RefusedAddressError('Enter a full URL, such as https://example.com/hooks/open-ron.');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.isHttpAllowed)) {
    throw new RefusedAddressError('Webhooks are sent only to https:// URLs.');
  }
  if (url.username || url.password) throw new RefusedAddressError('The URL may not carry a user name or password; authenticate deliveries by their signature.');
  if (!url.hostname) throw new RefusedAddressError('The URL has no host.');
  return url;
}

const privateRefusal = (host: string, address: string) =>
  `${host} is a private, loopback or otherwise non-public address (${address}); webhooks go only to public addresses.`;

/**
 * Resolves the URL's host and checks every address it has: one non-public address refuses it
 * (unless allowed). Returns the address a send connects to.
 */
export async function resolveWebhookTarget(raw: string, policy: AddressPolicy): Promise<CheckedTarget> {
  const url = parseWebhookUrl(raw, policy);
  // URL keeps IPv6 literals in brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: Array<{ address: string; family: number }>;
  if (net.isIP(host)) {
    addresses = [{ address: host, family: net.isIP(host) }];
  } else {
    try {
      addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
    } catch {
      throw new RefusedAddressError(`The name ${host} could not be found.`);
    }
  }
  if (addresses.length === 0) throw new RefusedAddressError(`The name ${host} has no address.`);
  if (!policy.isPrivateAllowed) {
    const refused = addresses.find((entry) => isNonPublicAddress(entry.address));
    if (refused) throw new RefusedAddressError(privateRefusal(host, refused.address));
  }
  const [first] = addresses;
  if (!first) throw new RefusedAddressError(`The name ${host} has no address.`);
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
