import { describe, expect, it } from 'vitest';
import { findUsState, getUsStateName, isUsStateCode, usStateCodes, usStates } from './us-states.ts';

describe('the US states table', () => {
  it('has the fifty states and the District of Columbia, listed by name', () => {
    expect(usStateCodes).toHaveLength(51);
    expect(usStateCodes).toContain('DC');
    const names = usStateCodes.map((code) => usStates[code].name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en-US')));
    expect(new Set(names).size).toBe(51);
  });

  it('names a state from its code and keeps what it does not know', () => {
    expect(getUsStateName('TX')).toBe('Texas');
    expect(getUsStateName(' va ')).toBe('Virginia');
    expect(getUsStateName('DC')).toBe('District of Columbia');
    expect(getUsStateName('Ontario')).toBe('Ontario');
    expect(findUsState('ZZ')).toBeNull();
    expect(isUsStateCode('NY')).toBe(true);
    expect(isUsStateCode('toString')).toBe(false);
  });
});
