import { describe, expect, it } from 'vitest';
import { type HealthCheck, partsNotUp } from '../../src/composition/lifecycle.js';

const check = (name: string, whenUp?: HealthCheck['whenUp']): HealthCheck => ({
  name,
  healthy: () => true,
  critical: false,
  ...(whenUp === undefined ? {} : { whenUp }),
});

describe('the wait at start for the parts the server connects to', () => {
  it('names the parts that were not up within the wait, and passes each the time it may take', async () => {
    const asked: number[] = [];
    const down = await partsNotUp(
      [
        check('sqlite'),
        check('redis', async (ms) => {
          asked.push(ms);
          return false;
        }),
        check('postgres', async () => true),
      ],
      250,
    );
    expect({ down, asked }).toEqual({ down: ['redis'], asked: [250] });
  });

  it('names none when every part is up or cannot tell', async () => {
    expect(await partsNotUp([check('sqlite'), check('redis', async () => true)], 10)).toEqual([]);
  });
});
