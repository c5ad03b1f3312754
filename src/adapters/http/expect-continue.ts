import type { IncomingMessage, Server, ServerResponse } from 'node:http';

// The requests whose client waits for 100 Continue before it sends the body.
const awaitingContinue = new WeakSet<IncomingMessage>();

/**
 * Makes `server` hand every request to the app, whatever its Expect header: Node would otherwise
 * answer 100 Continue before the app has checked the key and the limits (inviting a body the app is
 * about to refuse), and refuse other expectations with a bare 417 of its own. The app then answers
 * 100 Continue when it starts to read the body ({@link sendContinue}), and other expectations with its
 * Error body.
 */
export function deferContinue(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    awaitingContinue.add(req);
    server.emit('request', req, res);
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
}

/** Tells a client that waits for it to send its body now; does nothing for any other request. */
export function sendContinue(req: IncomingMessage, res: ServerResponse): void {
  if (awaitingContinue.delete(req)) res.writeContinue();
}
