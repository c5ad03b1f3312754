import type { ApiResult } from '../client/petstore-client.js';
import { type ApiSession, NotSent, refusalText } from './api-session.js';
import type { ConsoleState, Item, Note, PetPanel, Row, UndoableWrite } from './console-state.js';

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

type Sending = NonNullable<PetPanel['sending']>;

/**
 * One pet: opening it, keeping it live, its history, and the writes on it. Every write sends If-Match
 * with the tag of the numbers the person saw; on 412 the page reads the pet again, shows its current
 * numbers, keeps what the person typed and asks them to send again, instead of overwriting what someone
 * else did meanwhile. A write is sent now or not at all (see ApiSession.write).
 */
export class PetActions {
  constructor(private readonly app: PetHost) {}

  /** Opens a pet by its number, or from a row of the table (whose name it already has). */
  async open(target: string | Row): Promise<void> {
    let petId: bigint;
    if (typeof target === 'string') {
      const id = target.trim();
      if (!PET_ID.test(id)) {
        return this.app.update({ tableNote: { kind: 'refused', text: 'A pet number is a whole number, such as 42.' } });
      }
      petId = BigInt(id);
    } else {
      petId = target.petId;
    }
    const panel = await this.read(petId, typeof target === 'string' ? undefined : target);
    if (panel !== undefined) this.app.update({ pet: panel, tableNote: undefined });
  }

  close(): void {
    this.app.update({ pet: undefined });
  }

  /** Reads the open pet again (someone changed it): its numbers, history and chart; the forms stay as typed. */
  async refresh(): Promise<void> {
    const pet = this.app.state.pet;
    if (pet === undefined || pet.sending !== undefined) return;
    const current = await this.read(pet.item.petId, pet);
    const now = this.app.state.pet;
    if (current !== undefined && now?.item.petId === pet.item.petId && now.sending === undefined) {
      this.app.update({ pet: { ...now, item: current.item, etag: current.etag, history: current.history } });
    }
  }

  /** Sets the quantity; resolves true once saved (the form then clears), false otherwise (it keeps what was typed). */
  async setQuantity(quantityText: string, reason: string): Promise<boolean> {
    const quantity = wholeNumber(quantityText);
    if (quantity === undefined || quantity < 0) {
      this.say({ kind: 'refused', text: 'Quantity must be a whole number from 0.' });
      return false;
    }
    return this.write('set', `set to ${quantity}`, (session, pet) =>
      session.write((c) =>
        c.patch('/inventory/{petId}', {
          params: { path: { petId: pet.item.petId }, header: { 'If-Match': pet.etag } },
          body: reason === '' ? { quantity } : { quantity, reason },
        }),
      ),
    );
  }

  async adjust(deltaText: string, reason: string): Promise<boolean> {
    const delta = wholeNumber(deltaText);
    if (delta === undefined || delta === 0) {
      this.say({ kind: 'refused', text: 'Delta must be a whole number other than 0, such as -2 or 5.' });
      return false;
    }
    return this.write('adjust', `adjust by ${delta > 0 ? '+' : ''}${delta}`, (session, pet) =>
      session.write((c) =>
        c.post('/inventory/{petId}/adjustments', {
          params: { path: { petId: pet.item.petId }, header: { 'If-Match': pet.etag } },
          body: reason === '' ? { delta } : { delta, reason },
        }),
      ),
    );
  }

  /**
   * Puts the pet back as it was before the page's last write, with a new recorded change: If-Match on the
   * version that write left, so it is refused once anyone else changed the pet since.
   */
  async undo(): Promise<boolean> {
    const undo = this.app.state.pet?.undo;
    if (undo === undefined) return false;
    return this.write('undo', `undo`, (session, pet) =>
      session.write((c) =>
        c.patch('/inventory/{petId}', {
          params: { path: { petId: pet.item.petId }, header: { 'If-Match': undo.etagAfter } },
          body: { quantity: undo.quantityBefore, reason: `Undo of "${undo.what}" (back to ${undo.quantityBefore})` },
        }),
      ),
    );
  }

  private async write(
    sending: Sending,
    what: string,
    send: (session: ApiSession, pet: PetPanel) => Promise<ApiResult<unknown>>,
  ): Promise<boolean> {
    const pet = this.app.state.pet;
    const session = this.app.state.session;
    if (pet === undefined || session === undefined || pet.sending !== undefined) return false;
    this.app.update({ pet: { ...pet, sending, note: undefined, retry: undefined } });
    let answer: ApiResult<unknown> | undefined;
    try {
      answer = await this.app.guard(() => send(session, pet));
    } catch (error) {
      if (!(error instanceof NotSent)) throw error;
      const retry = () => void this.write(sending, what, send);
      this.settle(pet, {
        note: { kind: 'refused', text: `Not sent. ${error.message} What you typed is kept.` },
        retry,
      });
      return false;
    }
    if (answer === undefined) {
      this.settle(pet, {});
      return false;
    }
    const current = await this.read(pet.item.petId, pet);
    if (current === undefined || this.app.state.pet?.item.petId !== pet.item.petId) return false;
    let note: Note;
    let undo: UndoableWrite | undefined;
    if (answer.ok) {
      const saved = sending === 'undo' ? 'Undone' : 'Saved';
      note = {
        kind: 'done',
        text: `${saved}: quantity ${current.item.quantity}, available ${current.item.available}.`,
      };
      const etagAfter = answer.headers.get('etag');
      if (sending !== 'undo' && etagAfter !== null) undo = { quantityBefore: pet.item.quantity, etagAfter, what };
    } else if (answer.status === 412) {
      note = {
        kind: 'conflict',
        text:
          `${sending === 'undo' ? 'Not undone' : 'Not saved'}: someone else changed this pet since; nothing was ` +
          `written. It now has quantity ${current.item.quantity}, reserved ${current.item.reserved}, status ` +
          `${current.item.status}.${sending === 'undo' ? '' : ' Your input is kept: check it and send again.'}`,
      };
    } else {
      note = { kind: 'refused', text: `Not saved. ${refusalText(answer)}` };
    }
    this.app.update({ pet: { ...current, note, undo, sending: undefined, retry: undefined } });
    if (answer.ok) await this.app.reloadPage();
    return answer.ok;
  }

  /** Ends a write that changed nothing: its button is enabled again, the pet left as it was. */
  private settle(pet: PetPanel, patch: Partial<PetPanel>): void {
    const now = this.app.state.pet;
    if (now?.item.petId === pet.item.petId) this.app.update({ pet: { ...now, sending: undefined, ...patch } });
  }

  private say(note: Note): void {
    const pet = this.app.state.pet;
    if (pet !== undefined) this.app.update({ pet: { ...pet, note } });
  }

  /**
   * The pet's numbers with their tag, its name and its history; undefined (and a note) when refused.
   * Its name comes from `known` (a row, or the pet already open), or else from a page of the list that
   * starts at it (one request, with names).
   */
  private async read(
    petId: bigint,
    known?: { readonly name: string; readonly category?: unknown },
  ): Promise<PetPanel | undefined> {
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
    const named = known ?? (await this.nameOf(session, petId));
    return {
      item: entry.data as Item,
      etag: entry.headers.get('etag') ?? '',
      name: named?.name ?? `Pet ${petId}`,
      category: categoryName(named?.category),
      history: history?.ok === true ? history.data : [],
    };
  }

  private async nameOf(session: ApiSession, petId: bigint): Promise<Row | undefined> {
    // The page after the id just below it starts at the pet, if it is there.
    const query = { after: petId - 1n, limit: 1 };
    const page = await this.app.guard(() => session.send((c) => c.get('/inventory', { params: { query } })));
    const first = page?.ok === true ? (page.data?.[0] as Row | undefined) : undefined;
    return first?.petId === petId ? first : undefined;
  }
}

const categoryName = (category: unknown): string | undefined =>
  typeof category === 'string'
    ? category
    : typeof category === 'object' && category !== null && 'name' in category
      ? String(category.name)
      : undefined;

function wholeNumber(text: string): number | undefined {
  const trimmed = text.trim();
  return /^-?[0-9]{1,10}$/.test(trimmed) ? Number(trimmed) : undefined;
}
