import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery as the receiver got it. */
export interface Received {
  readonly id: string;
  readonly timestamp: string;
  readonly signature: string;
  readonly body: string;
  /** The status the receiver answered. */
  readonly status: number;
}

/** How the receiver answers a delivery: a status, or `hold` (never answer, as a hung receiver). */
export type Answer = number | 'hold';

/** A webhook receiver on 127.0.0.1, the only place the tests send anything. */
export interface WebhookReceiver {
  /** http://127.0.0.1:<port>/hook */
  readonly url: string;
  readonly received: Received[];
  /** What to answer a delivery: asked once per request, with how many times that id came before. */
  answer: (id: string, earlier: number) => Answer;
  /** Resolves once `predicate` holds of what was received, checking as each request arrives; fails after `timeoutMs`. */
  until(predicate: (received: readonly Received[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Verifies a delivery with the endpoint's secret, as a receiver using `standardwebhooks` does; throws when it fails. */
export const verify = (secret: string, delivery: Pick<Received, 'id' | 'timestamp' | 'signature' | 'body'>): unknown =>
  new Webhook(secret).verify(delivery.body, {
    'webhook-id': delivery.id,
    'webhook-timestamp': delivery.timestamp,
    'webhook-signature': delivery.signature,
  });

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const held: ServerResponse[] = [];
  const waiters = new Set<() => void>();
  const receiver = {
    url: '',
    received,
    answer: (() => 200) as (id: string, earlier: number) => Answer,
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      const answer = receiver.answer(id, received.filter((r) => r.id === id).length);
      received.push({
        id,
        timestamp: String(req.headers['webhook-timestamp']),
        signature: String(req.headers['webhook-signature']),
        body,
        status: answer === 'hold' ? 0 : answer,
      });
      for (const wake of waiters) wake();
      if (answer === 'hold') held.push(res);
      else res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return Object.assign(receiver, {
    until(predicate: (all: readonly Received[]) => boolean, timeoutMs = 30_000): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (!predicate(received)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`the receiver did not get what was awaited within ${timeoutMs} ms (${received.length} received)`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close(): Promise<void> {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
