import { describe, expect, it } from 'vitest';
import { takeTurns } from '../../src/domain/delivery-turns.js';

const due = (endpointId: string, n: number, endpointFailing = false) =>
  Array.from({ length: n }, (_, i) => ({ endpointId, endpointFailing, name: `${endpointId}${i + 1}` }));

const names = (taken: ReadonlyArray<{ readonly name: string }>) => taken.map((d) => d.name);

describe('takeTurns: which due deliveries a round leases', () => {
  it('lets the endpoints take turns, one delivery each a turn, in the order given', () => {
    const taken = takeTurns([...due('a', 3), ...due('b', 1), ...due('c', 2)], {
      inFlight: new Map(),
      perEndpoint: 10,
      max: 5,
    });
    expect(names(taken)).toEqual(['a1', 'b1', 'c1', 'a2', 'c2']);
  });

  it('stops an endpoint at perEndpoint in flight, counting the ones leased before', () => {
    const taken = takeTurns([...due('a', 5), ...due('b', 5)], {
      inFlight: new Map([['a', 1]]),
      perEndpoint: 2,
      max: 100,
    });
    expect(names(taken)).toEqual(['a1', 'b1', 'b2']);
  });

  it('serves the endpoints that are not failing first in each turn, and takes none past max', () => {
    const dead = Array.from({ length: 20 }, (_, i) => due(`dead${i}-`, 1, true)).flat();
    const taken = takeTurns([...dead, ...due('healthy', 2)], { inFlight: new Map(), perEndpoint: 1, max: 4 });
    expect(names(taken)).toEqual(['healthy1', 'dead0-1', 'dead1-1', 'dead2-1']);
  });

  it('takes nothing when every endpoint is at its bound', () => {
    expect(takeTurns(due('a', 3), { inFlight: new Map([['a', 4]]), perEndpoint: 4, max: 10 })).toEqual([]);
  });
});
