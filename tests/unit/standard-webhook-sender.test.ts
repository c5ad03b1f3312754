import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StandardWebhookSender } from '../../src/adapters/webhooks/standard-webhook-sender.js';
import { startWebhookReceiver, verify, type WebhookReceiver } from '../support/webhook-receiver.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const BODY = '{"type":"inventory.updated","data":{"petId":9223372036854775807}}';

describe('the Standard Webhooks sender', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  const message = (url: string) => ({ url, id: 'msg_1', secret: SECRET, body: BODY, atMs: Date.now() });

  it('posts the body as it is, signed with the secret, and answers the receiver’s status', async () => {
    receiver.answer = () => 202;
    const answer = await new StandardWebhookSender({ allowPrivate: true }).send(message(receiver.url));
    expect(answer).toEqual({ status: 202, error: null });
    const [got] = receiver.received;
    expect(got?.body).toBe(BODY);
    expect(got?.id).toBe('msg_1');
    expect(got?.signature).toMatch(/^v1,/);
    expect(verify(SECRET, got as NonNullable<typeof got>)).toEqual(JSON.parse(BODY));
  });

  it('gives an attempt up when no status line comes within its timeout', async () => {
    receiver.answer = () => 'hold';
    const answer = await new StandardWebhookSender({ allowPrivate: true, timeoutMs: 200 }).send(message(receiver.url));
    expect(answer).toEqual({ status: null, error: 'no answer within 0.2 s' });
  });

  it('without the setting, connects to no loopback address, by literal or by a name resolving to one', async () => {
    const sender = new StandardWebhookSender({ allowPrivate: false });
    const port = new URL(receiver.url).port;
    const literal = await sender.send(message(`http://127.0.0.1:${port}/hook`));
    expect(literal.status).toBeNull();
    expect(literal.error).toContain("127.0.0.1 is not a public address (IANA's loopback range)");
    const named = await sender.send(message(`http://localhost:${port}/hook`));
    expect(named.status).toBeNull();
    expect(named.error).toMatch(/localhost resolves to .* loopback/);
    expect(receiver.received).toEqual([]);
  });

  it('checks the address its resolver answers at delivery, the one it would connect to, not only the URL', async () => {
    // The name was public when registered; now it resolves to the receiver on the loopback (rebinding).
    const rebound = async (host: string) => (host === 'hooks.invalid' ? ['127.0.0.1'] : []);
    const url = `http://hooks.invalid:${new URL(receiver.url).port}/hook`;
    const guarded = await new StandardWebhookSender({ allowPrivate: false, resolve: rebound }).send(message(url));
    expect(guarded).toEqual({
      status: null,
      error: "hooks.invalid resolves to 127.0.0.1 is not a public address (IANA's loopback range)",
    });
    expect(receiver.received).toEqual([]);
    // The same resolver, with the setting, does reach the receiver: what stopped the first was the check.
    const open = await new StandardWebhookSender({ allowPrivate: true, resolve: rebound }).send(message(url));
    expect(open).toEqual({ status: 200, error: null });
    expect(receiver.received).toHaveLength(1);
  });
});
