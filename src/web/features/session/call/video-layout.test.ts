import { describe, expect, it } from 'vitest';
import { describeAway, layoutTiles, moveToSlot } from './video-layout.ts';

describe('layoutTiles', () => {
  it('keeps the slots of the shared map and puts people it does not name in the free slots', () => {
    const layout = layoutTiles(
      [
        { slot: 0, participantId: 'signer' },
        { slot: 2, participantId: 'notary' },
      ],
      ['notary', 'signer', 'witness', 'observer'],
    );
    expect(layout).toEqual([
      { slot: 0, participantId: 'signer' },
      { slot: 1, participantId: 'witness' },
      { slot: 2, participantId: 'notary' },
      { slot: 3, participantId: 'observer' },
    ]);
  });

  it('skips map entries for people who are not in the room', () => {
    expect(layoutTiles([{ slot: 0, participantId: 'gone' }], ['notary'])).toEqual([{ slot: 0, participantId: 'notary' }]);
  });

  it('shows nobody when the room is empty', () => {
    expect(layoutTiles([{ slot: 4, participantId: 'notary' }], [])).toEqual([]);
  });
});

describe('moveToSlot', () => {
  const layout = [
    { slot: 0, participantId: 'notary' },
    { slot: 1, participantId: 'signer' },
  ];

  it('swaps the mover with whoever held the slot', () => {
    expect(moveToSlot(layout, 'signer', 0)).toEqual([
      { slot: 0, participantId: 'signer' },
      { slot: 1, participantId: 'notary' },
    ]);
  });

  it('moves into an empty slot and leaves the others where they were', () => {
    expect(moveToSlot(layout, 'notary', 5)).toEqual([
      { slot: 1, participantId: 'signer' },
      { slot: 5, participantId: 'notary' },
    ]);
  });

  it('changes nothing for a person not shown or a move to the same slot', () => {
    expect(moveToSlot(layout, 'stranger', 3)).toBe(layout);
    expect(moveToSlot(layout, 'signer', 1)).toBe(layout);
  });
});

describe('describeAway', () => {
  it('names who lost their connection, or says nothing when nobody did', () => {
    expect(describeAway([])).toBeNull();
    expect(describeAway(['Sam Signer'])).toBe('Sam Signer lost their connection. Waiting for them to come back…');
    expect(describeAway(['Sam', 'Wendy', 'Olly'])).toBe('Sam, Wendy and Olly lost their connection. Waiting for them to come back…');
  });
});
