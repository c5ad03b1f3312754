import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpApp } from '../src/adapters/http/create-http-app.js';
import { createMemoryAdapters } from '../src/adapters/memory/memory-adapters.js';
import { NodeKeyCrypto } from '../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../src/adapters/system/system-clock.js';
import { createInventoryCore } from '../src/application/inventory-core.js';

/** The app over memory storage with example server URLs: what the scripts that read the served API use. */
export function exampleApp() {
  const crypto = new NodeKeyCrypto();
  const core = createInventoryCore({
    ...createMemoryAdapters(systemClock),
    clock: systemClock,
    keyGenerator: crypto,
    keyHasher: crypto,
  });
  return createHttpApp({
    ...core,
    clock: systemClock,
    readiness: () => true,
    options: {
      sunsetAt: new Date('2027-06-30T00:00:00Z'),
      servers: { production: 'https://api.petstore.example/v1', staging: 'https://staging.api.petstore.example/v1' },
      trustProxy: false,
    },
  });
}

/** Runs `use` with the example app listening on a free port of 127.0.0.1 (its origin), then closes it. */
export async function withExampleService<T>(use: (origin: string) => Promise<T>): Promise<T> {
  const server = createServer(exampleApp().callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/** GET /v1/openapi.json from a running service, parsed. */
export async function fetchServedDocument(origin: string): Promise<unknown> {
  const response = await fetch(`${origin}/v1/openapi.json`);
  if (response.status !== 200) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
  return response.json();
}
