import { once } from 'node:events';
import { createServer } from 'node:net';

/** A loopback port with nothing listening on it: a server that is down (a Redis, say). */
export async function deadPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
