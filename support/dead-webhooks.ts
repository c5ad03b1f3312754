import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { openSqliteStorage } from '../src/adapters/sqlite/sqlite-storage.js';
import { NodeKeyCrypto } from '../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../src/adapters/system/system-clock.js';
import { IssueApiKey } from '../src/application/use-cases/issue-api-key.js';
import { quantity } from '../src/domain/quantity.js';
import { aPet } from '../src/testing/index.js';
import { startService } from './service-process.js';
import { tempDatabase } from './temp-database.js';
import { webhookAdminOf } from './webhook-admin.js';

/** A receiver on 127.0.0.1 that accepts every connection and never answers nor reads: a hung receiver. */
async function startDeadReceiver(): Promise<{ readonly url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A healthy receiver on 127.0.0.2, another host than the dead receivers' (the cap per host counts the
 * URL's host): answers 204 at once, and notes when each pet's event arrived.
 */
async function startTimingReceiver(): Promise<{
  readonly url: string;
  readonly arrivedAt: Map<string, number>;
  close(): Promise<void>;
}> {
  const arrivedAt = new Map<string, number>();
  const server = createHttpServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const data = (JSON.parse(body) as { data: { petId: number | string } }).data;
      if (!arrivedAt.has(String(data.petId))) arrivedAt.set(String(data.petId), performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  return {
    url: `http://127.0.0.2:${(server.address() as AddressInfo).port}/hook`,
    arrivedAt,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What the healthy endpoint saw: how long after each change (its PATCH answered) its event arrived. */
export interface HealthyLatency {
  /** Per change, in order; `Infinity` when its event had not arrived `waitMs` after the last change. */
  readonly latenciesMs: readonly number[];
}

/**
 * The service as `npm start` runs it in production over SQLite (webhooks to the loopback allowed, as the
 * receivers live there), with `dead` receivers that accept connections and never answer, each the
 * receiver of `endpointsPerDead` endpoints (1 unless given), registered first, and one healthy one
 * registered last, and `settings` if given. Sets `events` pets' stock one after another, `gapMs`
 * apart, and measures when the healthy endpoint receives each event.
 */
export async function healthyEndpointLatency(options: {
  readonly dead: number;
  readonly endpointsPerDead?: number;
  readonly events: number;
  readonly gapMs: number;
  readonly waitMs: number;
  /** Settings beside production's, e.g. a shorter PETSTORE_WEBHOOK_POLL_MS. */
  readonly settings?: Readonly<Record<string, string>>;
}): Promise<HealthyLatency> {
  const temp = await tempDatabase();
  const dead = await Promise.all(Array.from({ length: options.dead }, () => startDeadReceiver()));
  const healthy = await startTimingReceiver();
  let key: string;
  const storage = openSqliteStorage({ path: temp.path });
  try {
    await storage.pets.addAll(Array.from({ length: options.events }, (_, i) => aPet(i + 1, { quantity: quantity(5) })));
    const crypto = new NodeKeyCrypto();
    key = (
      await new IssueApiKey(storage.keys, crypto, crypto, systemClock).execute({
        plan: 'enterprise',
        limits: { perMinute: 1_000_000, perDay: 10_000_000 },
      })
    ).key;
    const admin = webhookAdminOf(storage.webhooks, systemClock, true);
    const perDead = options.endpointsPerDead ?? 1;
    const deadUrls = dead.flatMap((d) =>
      Array.from({ length: perDead }, (_, i) => (perDead === 1 ? d.url : `${d.url}/${i}`)),
    );
    for (const url of [...deadUrls, healthy.url]) {
      const added = await admin.addWebhook.execute({ url, events: ['inventory.updated'], lowStockThreshold: null });
      if (!added.ok) throw new Error(added.error);
    }
  } finally {
    await storage.close();
  }
  const service = await startService({
    PETSTORE_DB: temp.path,
    PETSTORE_ENV: 'production',
    PETSTORE_WEBHOOK_ALLOW_PRIVATE: 'true',
    ...options.settings,
  });
  try {
    const changedAt: number[] = [];
    for (let pet = 1; pet <= options.events; pet += 1) {
      const response = await fetch(`${service.url}/v1/inventory/${pet}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: '{"quantity":9}',
      });
      if (response.status !== 200) throw new Error(`PATCH answered ${response.status}: ${await response.text()}`);
      changedAt.push(performance.now());
      await delay(options.gapMs);
    }
    const deadline = performance.now() + options.waitMs;
    while (healthy.arrivedAt.size < options.events && performance.now() < deadline) await delay(50);
    return {
      latenciesMs: changedAt.map((at, i) => (healthy.arrivedAt.get(String(i + 1)) ?? Number.POSITIVE_INFINITY) - at),
    };
  } finally {
    await service.stop();
    await healthy.close();
    await Promise.all(dead.map((d) => d.close()));
    await temp.remove();
  }
}
