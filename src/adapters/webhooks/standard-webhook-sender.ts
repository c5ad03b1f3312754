import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { WebhookAnswer, WebhookMessage, WebhookSender } from '../../application/ports/webhook-delivery.js';
import { forbiddenAddress, hostOf, type Resolve, resolveAll } from './webhook-url-policy.js';

/** An attempt is given up after this long without a status line: the Standard Webhooks norm. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * The lookup of an attempt's connection: the connection goes to the addresses this answers and no
 * other, so checking them here checks the address connected to. A name that resolved to a public
 * address at registration may point inside the network later (DNS rebinding); with `guard`, a name
 * with any forbidden address fails the attempt before anything is sent.
 */
const lookupThrough =
  (resolve: Resolve, guard: boolean): LookupFunction =>
  (hostname, options, callback) => {
    const fail = (error: Error): void => callback(error, '', 4);
    resolve(hostname).then((addresses) => {
      for (const address of guard ? addresses : []) {
        const problem = forbiddenAddress(address);
        if (problem !== undefined) return fail(new Error(`${hostname} resolves to ${problem}`));
      }
      const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
      const list = addresses
        .map((address) => ({ address, family: isIP(address) }))
        .filter((entry) => wanted === undefined || entry.family === wanted);
      if (options.all === true) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      const [first] = list;
      if (first === undefined) return fail(new Error(`${hostname} has no address`));
      return callback(null, first.address, first.family);
    }, fail);
  };

/**
 * Sends webhooks signed per the Standard Webhooks specification with the `standardwebhooks` package:
 * webhook-id, webhook-timestamp (Unix seconds) and webhook-signature (`v1,` and the base64 HMAC-SHA256 of
 * "id.timestamp.body" with the secret). One connection per attempt, no redirect followed (a 3xx is a
 * failure: it could lead inside the network), and the status line is all it waits for.
 */
export class StandardWebhookSender implements WebhookSender {
  private readonly lookup: LookupFunction;

  constructor(
    private readonly options: {
      readonly allowPrivate: boolean;
      readonly timeoutMs?: number;
      /** How a receiver's name is resolved; the system's resolver by default (tests answer from a table). */
      readonly resolve?: Resolve;
    } = { allowPrivate: false },
  ) {
    this.lookup = lookupThrough(options.resolve ?? resolveAll, !options.allowPrivate);
  }

  send(message: WebhookMessage): Promise<WebhookAnswer> {
    const url = new URL(message.url);
    const host = hostOf(url);
    if (!this.options.allowPrivate) {
      const problem = isIP(host) === 0 ? undefined : forbiddenAddress(host);
      if (problem !== undefined) return Promise.resolve({ status: null, error: `refused: ${problem}` });
    }
    const timestamp = new Date(message.atMs);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'petstore-webhooks/1.0',
      'webhook-id': message.id,
      'webhook-timestamp': String(Math.floor(message.atMs / 1000)),
      'webhook-signature': new Webhook(message.secret).sign(message.id, timestamp, message.body),
    };
    const timeoutMs = this.options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<WebhookAnswer>((resolve) => {
      let settled = false;
      const answer = (result: WebhookAnswer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const req = request(
        url,
        {
          method: 'POST',
          headers,
          agent: false,
          lookup: this.lookup,
        },
        (res) => {
          answer({ status: res.statusCode ?? null, error: null });
          // The body is not read: any 2xx is success, whatever it says.
          res.destroy();
        },
      );
      const timer = setTimeout(() => {
        answer({ status: null, error: `no answer within ${timeoutMs / 1000} s` });
        req.destroy();
      }, timeoutMs);
      req.on('error', (error) => answer({ status: null, error: error.message }));
      req.end(message.body);
    });
  }
}
