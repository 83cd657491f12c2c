import { describe, expect, it } from 'vitest';
import { describeClose, reconnectDelayMs, shouldReconnect } from './reconnect.ts';

describe('shouldReconnect', () => {
  it('comes back after an ordinary drop or an unreadable message', () => {
    for (const code of [1000, 1001, 1006, 1011, 4400]) expect(shouldReconnect(code)).toBe(true);
  });

  it('stays away when signed out, refused, replaced by another tab or when the session ended', () => {
    for (const code of [4401, 4403, 4409, 4410]) expect(shouldReconnect(code)).toBe(false);
  });
});

describe('describeClose', () => {
  it('gives the sentence of the contract for its codes and nothing for a plain drop', () => {
    expect(describeClose(4410)).toBe('The notary has ended this session.');
    expect(describeClose(4409)).toMatch(/another tab or device/);
    expect(describeClose(1006)).toBeNull();
  });
});

describe('reconnectDelayMs', () => {
  it('doubles from half a second and stops growing at 15 seconds', () => {
    const noJitter = () => 0;
    expect([1, 2, 3, 4, 5, 6, 7, 12].map((attempt) => reconnectDelayMs(attempt, noJitter))).toEqual([500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000]);
  });

  it('takes up to a quarter off at random so a room does not come back all at once', () => {
    expect(reconnectDelayMs(3, () => 1)).toBe(1500);
    expect(reconnectDelayMs(3, () => 0.5)).toBe(1750);
  });
});
