import { describe, expect, it } from 'vitest';
import { isNonPublicAddress, parseWebhookUrl, resolveWebhookTarget } from './webhook-address.ts';

const strict = { isHttpAllowed: false, isPrivateAllowed: false };

describe('which addresses a webhook may reach', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.0.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.251',
    '255.255.255.255',
    '::',
    '::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '0:0:0:0:0:ffff:10.0.0.1',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
  ])('counts %s as non-public', (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:93.184.215.14'])('counts %s as public', (address) => {
    expect(isNonPublicAddress(address)).toBe(false);
  });

  it('refuses a name that resolves to loopback, and accepts it when the operator allows private addresses', async () => {
    await expect(resolveWebhookTarget('https://localhost:8443/hook', strict)).rejects.toThrow(/localhost is a private, loopback/);
    const target = await resolveWebhookTarget('https://localhost:8443/hook', { isHttpAllowed: false, isPrivateAllowed: true });
    expect(['127.0.0.1', '::1']).toContain(target.address);
  });

  it('takes http:// only when the operator allows it', () => {
    expect(() => parseWebhookUrl('http://93.184.215.14/', strict)).toThrow(/only to https/);
    expect(parseWebhookUrl('http://93.184.215.14/', { isHttpAllowed: true, isPrivateAllowed: false }).protocol).toBe('http:');
  });
});
