import { once } from 'node:events';
import { createServer, type Server, Socket } from 'node:net';

/** Where a connection that sends COMMIT is cut, relative to that COMMIT. */
export type Cut = 'before-commit' | 'after-commit';

/**
 * A TCP proxy between a client and PostgreSQL that reads the client's messages (the frontend protocol)
 * so that it can lose the answer to a COMMIT on purpose: armed, it cuts the next connection that sends
 * one, either before forwarding it or right after (then PostgreSQL commits, and its answer goes
 * nowhere). A simple query ('Q') or a Parse ('P') whose text holds COMMIT counts, and a Bind ('B') of a
 * statement whose Parse held it (a named COMMIT, parsed once a connection); after a Parse or a Bind,
 * the cut comes once its Sync is forwarded, so that it runs.
 */
export interface CommitCuttingProxy {
  /** `url` with its port turned to the proxy's. */
  readonly url: string;
  /** Cuts the next connection that sends COMMIT; with `thenRefuse`, every connection is refused afterwards. */
  arm(cut: Cut, options?: { readonly thenRefuse?: boolean }): void;
  /** How many connections were cut. */
  cuts(): number;
  /** The type of the message that sent each cut's COMMIT: 'Q', 'P' or 'B' (a Bind of a COMMIT parsed before). */
  cutBy(): string[];
  close(): Promise<void>;
}

const SSL_REQUEST = 80_877_103;
const GSS_REQUEST = 80_877_104;

export async function startCommitCuttingProxy(target: string): Promise<CommitCuttingProxy> {
  const targetUrl = new URL(target);
  let armed: { cut: Cut; thenRefuse: boolean } | undefined;
  let refusing = false;
  let cutCount = 0;
  const cutTypes: string[] = [];
  const open = new Set<Socket>();

  const refuseAll = (): void => {
    refusing = true;
    for (const socket of open) socket.destroy();
  };

  const server: Server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = new Socket();
    open.add(client);
    open.add(upstream);
    let cut = false;
    let started = false;
    let cutAtSync = false;
    let pending = Buffer.alloc(0);
    /** The names of the statements this connection parsed whose text holds COMMIT. */
    const commits = new Set<string>();

    const cutNow = (): void => {
      cut = true;
      cutCount += 1;
      // end, not destroy: what was written reaches PostgreSQL, which runs it before it reads the end.
      open.delete(upstream);
      upstream.end();
      client.destroy();
      const refuse = armed?.thenRefuse === true;
      armed = undefined;
      if (refuse) refuseAll();
    };

    const forward = (message: Buffer): void => {
      const type = String.fromCharCode(message[0] ?? 0);
      const body = message.subarray(5);
      const [first = '', second = ''] = body.toString('utf8').split('\0');
      const parsesCommit = type === 'P' && /\bCOMMIT\b/i.test(second);
      if (parsesCommit) commits.add(first);
      const isCommit =
        (type === 'Q' && /\bCOMMIT\b/i.test(first)) || parsesCommit || (type === 'B' && commits.has(second));
      if (armed !== undefined && isCommit) cutTypes.push(type);
      if (armed !== undefined && isCommit && armed.cut === 'before-commit') {
        cutNow();
        return;
      }
      upstream.write(message);
      if (armed === undefined) return;
      if (isCommit && type === 'Q') cutNow();
      else if (isCommit) cutAtSync = true;
      else if (cutAtSync && type === 'S') cutNow();
    };

    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (!cut) {
        if (!started) {
          // The startup message (or an SSL or GSS request before it) has a length and no type byte.
          if (pending.length < 8) return;
          const length = pending.readInt32BE(0);
          if (pending.length < length) return;
          const code = pending.readInt32BE(4);
          started = code !== SSL_REQUEST && code !== GSS_REQUEST;
          upstream.write(pending.subarray(0, length));
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) return;
        const length = 1 + pending.readInt32BE(1);
        if (pending.length < length) return;
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        forward(message);
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!cut) client.write(chunk);
    });
    // Once cut, the upstream side is left to end on its own: destroying it could drop the COMMIT unsent.
    const close = (): void => {
      open.delete(client);
      client.destroy();
      if (cut) return;
      open.delete(upstream);
      upstream.destroy();
    };
    client.on('close', close);
    upstream.on('close', () => {
      open.delete(upstream);
      close();
    });
    client.on('error', close);
    upstream.on('error', close);
    upstream.connect(Number(targetUrl.port), targetUrl.hostname);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  const url = new URL(target);
  url.port = String(address.port);
  return {
    url: url.toString(),
    arm(cut, options = {}) {
      armed = { cut, thenRefuse: options.thenRefuse === true };
    },
    cuts: () => cutCount,
    cutBy: () => [...cutTypes],
    async close() {
      refuseAll();
      server.close();
      await once(server, 'close');
    },
  };
}
