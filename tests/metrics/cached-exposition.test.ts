import { describe, expect, it } from 'vitest';
import { cachedExposition, type MetricsExposition } from '../../src/adapters/http/request-metrics.js';

/** An exposition that counts its renderings and answers the count; fails while `failing` is set. */
function countingExposition() {
  const state = { renderings: 0, failing: false };
  const exposition: MetricsExposition = {
    contentType: 'text/plain; version=0.0.4',
    text: async () => {
      state.renderings += 1;
      if (state.failing) throw new Error('registry failed');
      return `rendering ${state.renderings}`;
    },
  };
  return { state, exposition };
}

describe('the metrics of the API port', () => {
  it('are rendered at most once a second, however many requests ask for them', async () => {
    const { state, exposition } = countingExposition();
    let now = 0;
    const cached = cachedExposition(exposition, () => now);
    const answers = await Promise.all(Array.from({ length: 100 }, () => cached.text()));
    expect(new Set(answers)).toEqual(new Set(['rendering 1']));
    now = 999;
    expect(await cached.text()).toBe('rendering 1');
    now = 1_000;
    expect(await cached.text()).toBe('rendering 2');
    expect(state.renderings).toBe(2);
  });

  it('render again on the next request after a rendering failed', async () => {
    const { state, exposition } = countingExposition();
    const cached = cachedExposition(exposition, () => 0);
    state.failing = true;
    await expect(cached.text()).rejects.toThrow('registry failed');
    state.failing = false;
    expect(await cached.text()).toBe('rendering 2');
  });

  it('keep the content type of the exposition', () => {
    const { exposition } = countingExposition();
    expect(cachedExposition(exposition).contentType).toBe(exposition.contentType);
  });
});
