import type { ApiResult } from '../client/petstore-client.js';
import { refusalText } from './api-session.js';
import type { ConsoleState, Item, Note, PetPanel } from './console-state.js';

/** What the pet's actions need of the page: its state, and its ways to change it and to send. */
export interface PetHost {
  readonly state: ConsoleState;
  update(patch: Partial<ConsoleState>): void;
  guard<T>(request: () => Promise<T>): Promise<T | undefined>;
  reloadPage(): Promise<void>;
}

/** How many changes of a pet's history the page reads and draws. */
const HISTORY_PAGE = 200;

const PET_ID = /^-?[0-9]{1,19}$/;

/**
 * One pet: opening it, its history, and the writes on it. Every write sends If-Match with the tag of
 * the numbers the person saw; on 412 the page reads the pet again, shows its current numbers and asks
 * the person to send again, instead of overwriting what someone else did meanwhile.
 */
export class PetActions {
  constructor(private readonly app: PetHost) {}

  async open(text: string): Promise<void> {
    const id = text.trim();
    if (!PET_ID.test(id)) {
      return this.app.update({ tableNote: { kind: 'refused', text: 'A pet id is a whole number, such as 42.' } });
    }
    const panel = await this.read(BigInt(id));
    if (panel !== undefined) this.app.update({ pet: panel, tableNote: undefined });
  }

  close(): void {
    this.app.update({ pet: undefined });
  }

  async setQuantity(quantityText: string, reason: string): Promise<void> {
    const quantity = wholeNumber(quantityText);
    if (quantity === undefined || quantity < 0)
      return this.say({ kind: 'refused', text: 'Quantity must be a whole number from 0.' });
    await this.write((pet) =>
      this.app.guard(() =>
        this.session().send((c) =>
          c.patch('/inventory/{petId}', {
            params: { path: { petId: pet.item.petId }, header: { 'If-Match': pet.etag } },
            body: reason === '' ? { quantity } : { quantity, reason },
          }),
        ),
      ),
    );
  }

  async adjust(deltaText: string, reason: string): Promise<void> {
    const delta = wholeNumber(deltaText);
    if (delta === undefined || delta === 0) {
      return this.say({ kind: 'refused', text: 'Delta must be a whole number other than 0, such as -2 or 5.' });
    }
    await this.write((pet) =>
      this.app.guard(() =>
        this.session().send((c) =>
          c.post('/inventory/{petId}/adjustments', {
            params: { path: { petId: pet.item.petId }, header: { 'If-Match': pet.etag } },
            body: reason === '' ? { delta } : { delta, reason },
          }),
        ),
      ),
    );
  }

  private session() {
    const session = this.app.state.session;
    if (session === undefined) throw new Error('a write was asked for while signed out');
    return session;
  }

  private async write(send: (pet: PetPanel) => Promise<ApiResult<unknown> | undefined>): Promise<void> {
    const pet = this.app.state.pet;
    if (pet === undefined) return;
    const answer = await send(pet);
    if (answer === undefined) return;
    const current = await this.read(pet.item.petId);
    if (current === undefined) return;
    let note: Note;
    if (answer.ok) {
      note = { kind: 'done', text: `Saved: quantity ${current.item.quantity}, available ${available(current.item)}.` };
    } else if (answer.status === 412) {
      note = {
        kind: 'conflict',
        text:
          `Someone else changed this pet since you opened it; nothing was written. It now has quantity ` +
          `${current.item.quantity}, reserved ${current.item.reserved}, status ${current.item.status}. ` +
          'Check the numbers and send again.',
      };
    } else {
      note = { kind: 'refused', text: `Not saved: ${refusalText(answer)}` };
    }
    this.app.update({ pet: { ...current, note } });
    if (answer.ok) await this.app.reloadPage();
  }

  private say(note: Note): void {
    const pet = this.app.state.pet;
    if (pet !== undefined) this.app.update({ pet: { ...pet, note } });
  }

  /** The pet's numbers with their tag, and its history; undefined (and a note) when refused. */
  private async read(petId: bigint): Promise<PetPanel | undefined> {
    const session = this.app.state.session;
    if (session === undefined) return undefined;
    const path = { petId };
    const entry = await this.app.guard(() => session.send((c) => c.get('/inventory/{petId}', { params: { path } })));
    if (entry === undefined) return undefined;
    if (!entry.ok) {
      this.app.update({ tableNote: { kind: 'refused', text: refusalText(entry) } });
      return undefined;
    }
    const history = await this.app.guard(() =>
      session.send((c) => c.get('/inventory/{petId}/changes', { params: { path, query: { limit: HISTORY_PAGE } } })),
    );
    return {
      item: entry.data as Item,
      etag: entry.headers.get('etag') ?? '',
      history: history?.ok === true ? history.data : [],
    };
  }
}

const available = (item: Item): number => item.quantity - item.reserved;

function wholeNumber(text: string): number | undefined {
  const trimmed = text.trim();
  return /^-?[0-9]{1,10}$/.test(trimmed) ? Number(trimmed) : undefined;
}
