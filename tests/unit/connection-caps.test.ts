import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConnectionCaps } from '../../src/adapters/http/server/connection-guards.js';

/** A connection as the caps see it: its peer's address, nothing sent yet. */
function connection(remoteAddress: string): Socket {
  const socket = new PassThrough();
  Object.defineProperties(socket, { remoteAddress: { value: remoteAddress }, bytesRead: { value: 0 } });
  return socket as unknown as Socket;
}

/** The caps over a server that only emits connections (no HTTP listener), with a clock that never moves. */
function capsOf(maxConnections: number, maxPerAddress: number, idleGraceMs: number) {
  const server = new EventEmitter() as unknown as Server;
  const caps = new ConnectionCaps(
    server,
    { maxConnections, maxPerAddress, idleGraceMs, firstByteTimeoutMs: 60_000 },
    () => 1_000_000,
  );
  const arrive = (address: string): Socket => {
    const socket = connection(address);
    server.emit('connection', socket);
    return socket;
  };
  return { caps, arrive };
}

/** Whether the caps turned the connection away or closed it: answered and ended, or destroyed. */
const turnedAway = (socket: Socket): boolean => socket.destroyed || socket.writableEnded;

describe('the connection caps count a client', () => {
  it('by its /64 for an IPv6 address: a third address of one /64 is refused at a cap of 2, another /64 is not', () => {
    const { arrive } = capsOf(100, 2, 60_000);
    const same = ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3'].map(arrive);
    const other = arrive('2001:db8:1:3::1');
    expect(same.map(turnedAway)).toEqual([false, false, true]);
    expect(turnedAway(other)).toBe(false);
  });

  it('by its IPv4 address for an IPv4-mapped one', () => {
    const { arrive } = capsOf(100, 1, 60_000);
    const first = arrive('192.0.2.7');
    const mapped = arrive('::ffff:192.0.2.7');
    expect([turnedAway(first), turnedAway(mapped)]).toEqual([false, true]);
  });
});

describe('at the server cap', () => {
  it('closes the oldest idle connection of the client holding the most, and admits the newcomer', () => {
    const { arrive } = capsOf(4, 10, 0);
    const crowded = [arrive('10.0.0.1'), arrive('10.0.0.1'), arrive('10.0.0.1')];
    const lone = arrive('10.0.0.2');
    const newcomer = arrive('10.0.0.3');
    expect(crowded.map(turnedAway)).toEqual([true, false, false]);
    expect(turnedAway(lone)).toBe(false);
    expect(turnedAway(newcomer)).toBe(false);
  });

  it('refuses the newcomer while every connection is younger than the grace', () => {
    const { arrive } = capsOf(2, 10, 60_000);
    const held = [arrive('10.0.0.1'), arrive('10.0.0.2')];
    const newcomer = arrive('10.0.0.3');
    expect(held.map(turnedAway)).toEqual([false, false]);
    expect(turnedAway(newcomer)).toBe(true);
  });
});
