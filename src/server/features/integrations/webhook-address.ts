import dns from 'node:dns';
import net from 'node:net';

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

const nonPublic = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated)
  ['64:ff9b::', 96], // NAT64: an IPv4 address inside
  ['64:ff9b:1::', 48], // local NAT64
  ['100::', 64], // discard
  ['2001::', 32], // Teredo
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: an IPv4 address inside
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped IPv6 one (::ffff:a.b.c.d, in either spelling), else null. */
function mappedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted?.[1] && net.isIPv4(dotted[1])) return dotted[1];
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex?.[1] || !hex[2]) return null;
  const high = Number.parseInt(hex[1], 16);
  const low = Number.parseInt(hex[2], 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** Whether an address is anything but a public unicast one (loopback, private, link-local, CGNAT, multicast…). */
export function isNonPublicAddress(address: string): boolean {
  const mapped = net.isIPv6(address) ? mappedIpv4(address) : null;
  if (mapped) return nonPublic.check(mapped, 'ipv4');
  if (net.isIPv4(address)) return nonPublic.check(address, 'ipv4');
  if (net.isIPv6(address)) return nonPublic.check(address, 'ipv6');
  return true;
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
