import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestMessage, serveRequest } from '../../src/adapters/sqlite/writer-thread-messages.js';
import { petId } from '../../src/domain/pet-id.js';
import {
  STOCK_ORDER_KINDS,
  type StockCommand,
  type StockOrderKind,
  stockOrder,
} from '../../src/domain/stock-command.js';

/*
 * docs/decisions.md lists the files a new kind of stock write touches: the core's kinds and decision, and
 * the route. These hold the rest of it: the stores and the writer thread carry orders without naming a
 * kind, and the thread carries whatever kinds the core has.
 */

const ADAPTERS = join(import.meta.dirname, '../../src/adapters');

/** The HTTP adapter is the route: its schemas and OpenAPI document name each kind's field. */
const ROUTE = join(ADAPTERS, 'http');

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return path === ROUTE ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Code that picks or makes an order by its kind: `case 'set'`, `kind === 'set'`, `{ kind: 'set' ... }`. */
const namesKind = (kind: StockOrderKind): RegExp => new RegExp(`(case\\s+|[!=]==\\s*|kind:\\s*)'${kind}'`);

/** A value each kind takes; typed by the kinds, so a kind added to the core without one fails the typecheck. */
const A_VALUE: Readonly<Record<StockOrderKind, unknown>> = { set: 4, adjust: -2 };

describe('a new kind of stock write touches the core and the route, no store and no thread protocol', () => {
  it('no file of a store or of the writer thread picks or makes an order by its kind', () => {
    const found = sources(ADAPTERS).flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .flatMap((line, at) =>
          STOCK_ORDER_KINDS.some((kind) => namesKind(kind).test(line))
            ? [`${relative(ADAPTERS, path)}:${at + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(found).toEqual([]);
  });

  it('the writer thread carries an order of every kind the core knows, made again by the core', () => {
    for (const kind of STOCK_ORDER_KINDS) {
      const order = stockOrder(kind, A_VALUE[kind], { petId: petId(9n), ifVersion: [1], reason: 'counted' });
      if (!order.ok) throw new Error(order.error);
      const command: StockCommand = { orders: [order.value], actor: 'key_a', atMs: 1 };
      let carried: unknown;
      serveRequest(structuredClone(requestMessage('writeStock', 1, command)), {
        serve: (name, _id, request) => {
          expect(name).toBe('writeStock');
          carried = request;
        },
        close: () => undefined,
        unreadable: (_id, error) => {
          throw error;
        },
      });
      expect(carried).toEqual(command);
    }
  });

  it('every kind of order takes only its own value', () => {
    for (const kind of STOCK_ORDER_KINDS) {
      expect(stockOrder(kind, 'four', { petId: petId(1n) })).toEqual({
        ok: false,
        error: expect.stringContaining(`a ${kind} order takes`),
      });
    }
    expect(stockOrder('teleport', 1, { petId: petId(1n) })).toEqual({
      ok: false,
      error: 'teleport is not a kind of stock order',
    });
  });
});
