import { describe, expect, it } from 'vitest';
import { resolveWebhookTarget } from './webhook-address.ts';

const strict = { isHttpAllowed: false, isPrivateAllowed: false };

describe('attack round 1: webhook addresses written to hide a private one', () => {
  it.each([
    'https://2130706433/hook', // decimal 127.0.0.1
    'https://0177.0.0.1/hook', // octal
    'https://0x7f.1/hook', // hex, short form
    'https://127.1/hook',
    'https://0.0.0.0/hook',
    'https://0/hook',
    'https://[::]/hook',
    'https://[::ffff:7f00:1]/hook',
    'https://[0:0:0:0:0:ffff:a9fe:a9fe]/hook', // metadata, mapped
    'https://[::127.0.0.1]/hook', // IPv4-compatible
    'https://[64:ff9b::7f00:1]/hook', // NAT64
    'https://[fe80::1]/hook',
    'https://localhost./hook',
  ])('refuses %s', async (url) => {
    await expect(resolveWebhookTarget(url, strict)).rejects.toThrow(/non-public|could not be found/);
  });
});
