import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { ConsoleApp } from './console-app.js';
import type { Change, ConsoleState, PetPanel } from './console-state.js';
import { field, noteView, onSubmit } from './stock-views.js';

const when = (at: string): string => new Date(at).toLocaleString();

function historyView(history: readonly Change[]): TemplateResult {
  if (history.length === 0) return html`<p>No change recorded yet.</p>`;
  return html`<div class="history-wrap" role="region" aria-label="History" tabindex="0"><table class="history">
    <caption>History, newest first</caption>
    <thead>
      <tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Kind</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Reason</th></tr>
    </thead>
    <tbody>
      ${history.map(
        (change) => html`<tr>
          <td><time datetime=${change.at}>${when(change.at)}</time></td>
          <td>${change.keyName ?? change.keyId}</td>
          <td>${change.kind}</td>
          <td>${change.quantityBefore} (${change.statusBefore})</td>
          <td>${change.quantityAfter} (${change.statusAfter})</td>
          <td class="reason">${change.reason ?? ''}</td>
        </tr>`,
      )}
    </tbody>
  </table></div>`;
}

/** Runs a write from its form; once saved, the form clears (a failed one keeps what was typed). */
const sendFrom =
  (write: (form: HTMLFormElement) => Promise<boolean>) =>
  (form: HTMLFormElement): void =>
    void write(form).then((saved) => {
      if (saved) form.reset();
    });

function writeForms(pet: PetPanel, app: ConsoleApp): TemplateResult {
  const set = sendFrom((form) => app.pet.setQuantity(field(form, 'quantity'), field(form, 'reason').trim()));
  const adjust = sendFrom((form) => app.pet.adjust(field(form, 'delta'), field(form, 'reason').trim()));
  const busy = pet.sending !== undefined;
  return html`<div class="writes">
    <form @submit=${onSubmit(set)} aria-label="Set the quantity">
      <label for="set-quantity">Quantity</label>
      <input id="set-quantity" name="quantity" type="number" min="0" step="1" required inputmode="numeric" placeholder=${`now ${pet.item.quantity}`} />
      <label for="set-reason">Reason for the count</label>
      <input id="set-reason" name="reason" type="text" maxlength="200" />
      <button type="submit" ?disabled=${busy}>Set</button>
    </form>
    <form @submit=${onSubmit(adjust)} aria-label="Adjust the quantity">
      <label for="adjust-delta">Delta</label>
      <input id="adjust-delta" name="delta" type="number" step="1" required inputmode="numeric" />
      <label for="adjust-reason">Reason</label>
      <input id="adjust-reason" name="reason" type="text" maxlength="200" />
      <button type="submit" ?disabled=${busy}>Adjust</button>
    </form>
    <p class="after-write">
      ${pet.retry === undefined ? nothing : html`<button type="button" ?disabled=${busy} @click=${pet.retry}>Retry</button>`}
      ${
        pet.undo === undefined
          ? nothing
          : html`<button type="button" ?disabled=${busy} @click=${() => void app.pet.undo()}>Undo</button>
              <span>(${pet.undo.what})</span>`
      }
    </p>
  </div>`;
}

export function petView(state: ConsoleState, app: ConsoleApp): TemplateResult | typeof nothing {
  const pet = state.pet;
  if (pet === undefined) return nothing;
  const { item } = pet;
  return html`<section class="pet" aria-labelledby="pet-title">
    <h2 id="pet-title" tabindex="-1">${pet.name} <span class="pet-number">(pet ${String(item.petId)})</span></h2>
    ${pet.category === undefined ? nothing : html`<p>Category: ${pet.category}</p>`}
    <dl class="numbers">
      <div><dt>On hand</dt><dd data-field="quantity">${item.quantity}</dd></div>
      <div><dt>Reserved</dt><dd data-field="reserved">${item.reserved}</dd></div>
      <div><dt>Available</dt><dd data-field="available">${item.available}</dd></div>
      <div><dt>Status</dt><dd data-field="status">${item.status}</dd></div>
    </dl>
    ${noteView(pet.note)}
    ${state.canWrite ? writeForms(pet, app) : html`<p>This key reads only: it cannot change the stock.</p>`}
    <figure class="chart">
      <figcaption id="chart-caption">Quantity over time: ${pet.history.length} ${pet.history.length === 1 ? 'change' : 'changes'}</figcaption>
      <div id="quantity-chart" role="img" aria-labelledby="chart-caption"></div>
    </figure>
    ${historyView(pet.history)}
    <button type="button" @click=${() => app.pet.close()}>Close pet</button>
  </section>`;
}
