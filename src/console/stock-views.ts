import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { ConsoleApp } from './console-app.js';
import type { ConsoleState, Limits, Note, PetStatus } from './console-state.js';

/*
 * The views: lit templates of the state. Every value from the API goes in as a template value, which
 * lit writes as text (never as HTML), so a name or reason holding markup shows its characters.
 */

const STATUSES: readonly PetStatus[] = ['available', 'pending', 'sold'];

/** A form's named field as text. */
export const field = (form: HTMLFormElement, name: string): string => {
  const value = new FormData(form).get(name);
  return typeof value === 'string' ? value : '';
};

/** Runs `act` on a form's submit instead of the browser's navigation. */
export const onSubmit =
  (act: (form: HTMLFormElement) => void) =>
  (event: SubmitEvent): void => {
    event.preventDefault();
    act(event.currentTarget as HTMLFormElement);
  };

export const noteView = (note: Note | undefined): TemplateResult | typeof nothing =>
  note === undefined
    ? nothing
    : html`<p class="note ${note.kind}" role=${note.kind === 'done' ? 'status' : 'alert'}>${note.text}</p>`;

export function signInView(state: ConsoleState, app: ConsoleApp): TemplateResult {
  return html`<form class="sign-in" @submit=${onSubmit((form) => void app.signIn(field(form, 'key')))}>
    <h2>Sign in</h2>
    <p>The key stays in this tab only, and is forgotten when you sign out or close the tab.</p>
    <label for="api-key">API key</label>
    <input id="api-key" name="key" type="password" autocomplete="off" spellcheck="false" required />
    <button type="submit">Sign in</button>
    ${noteView(state.signInNote)}
  </form>`;
}

/** Below this share of a window left, the page says how many requests are left: a person needs it then. */
const FEW_LEFT = 0.2;

const fewLeft = (window: { readonly remaining: number; readonly limit: number }): boolean =>
  window.remaining < window.limit * FEW_LEFT;

export function limitsView(limits: Limits | undefined, app: ConsoleApp): TemplateResult {
  const { key, limits: windows } = limits ?? { key: undefined, limits: undefined };
  const low = windows !== undefined && (fewLeft(windows.minute) || fewLeft(windows.day));
  return html`<section class="limits" aria-label="Your key">
    ${
      key === undefined || windows === undefined
        ? nothing
        : html`<p>
            Signed in as <strong>${key.name ?? key.id}</strong>
            ${key.scopes.includes('inventory:write') ? '(can change the stock)' : '(read only)'}.
            ${
              low
                ? html`<span class="few-left">Few requests left: ${windows.minute.remaining} this minute,
                    ${windows.day.remaining} today. The page slows down to stay within them.</span>`
                : nothing
            }
          </p>`
    }
    <button type="button" @click=${() => app.signOut()}>Sign out</button>
  </section>`;
}

export function filterView(state: ConsoleState, app: ConsoleApp): TemplateResult {
  const apply = (form: HTMLFormElement) =>
    void app.applyFilter({
      status: field(form, 'status') as PetStatus | '',
      maxAvailable: field(form, 'max'),
      search: field(form, 'search'),
    });
  return html`<div class="filters">
    <form @submit=${onSubmit(apply)} aria-label="Filters">
      <label for="search">Search</label>
      <input id="search" name="search" type="search" maxlength="200" autocomplete="off" placeholder="Part of a name, or a pet number" .value=${state.filter.search} />
      <label for="status-filter">Status</label>
      <select id="status-filter" name="status">
        <option value="" ?selected=${state.filter.status === ''}>every status</option>
        ${STATUSES.map((status) => html`<option value=${status} ?selected=${state.filter.status === status}>${status}</option>`)}
      </select>
      <label for="low-stock">Low stock at or below</label>
      <input id="low-stock" name="max" type="number" min="0" step="1" inputmode="numeric" .value=${state.filter.maxAvailable} />
      <button type="submit">Apply filters</button>
    </form>
    <p class="export">
      <button type="button" ?disabled=${state.exporting === true} @click=${() => void app.exportCsv()}>Export CSV</button>
      ${noteView(state.exportNote)}
    </p>
  </div>`;
}

export function tableView(state: ConsoleState, app: ConsoleApp): TemplateResult {
  const first = state.pageStarts.length === 1;
  return html`<section aria-label="Stock">
    ${noteView(state.tableNote)}
    <div class="table-wrap" role="region" aria-label="Stock table" tabindex="0"><table>
      <caption>
        Stock levels${state.filter.search === '' ? '' : `, names with “${state.filter.search}”`}${state.filter.status === '' ? '' : `, status ${state.filter.status}`}${
          state.filter.maxAvailable === '' ? '' : `, available at or below ${state.filter.maxAvailable}`
        }${state.liveAt === undefined ? '' : ` (updated live at ${state.liveAt})`}
      </caption>
      <thead>
        <tr><th scope="col">Pet</th><th scope="col">Quantity</th><th scope="col">Reserved</th><th scope="col">Available</th><th scope="col">Status</th></tr>
      </thead>
      <tbody>
        ${state.rows.map(
          (row) => html`<tr>
            <th scope="row">
              <button type="button" class="link" @click=${() => void app.pet.open(row)}>${row.name}</button>
              <span class="pet-number">#${String(row.petId)}${row.category === undefined ? '' : ` · ${row.category.name}`}</span>
            </th>
            <td>${row.quantity}</td>
            <td>${row.reserved}</td>
            <td>${row.available}</td>
            <td>${row.status}</td>
          </tr>`,
        )}
      </tbody>
    </table></div>
    ${state.rows.length === 0 ? html`<p>No pet on this page matches.</p>` : nothing}
    <nav aria-label="Pages" class="pages">
      <button type="button" ?disabled=${first} @click=${() => void app.previousPage()}>Previous page</button>
      <button type="button" ?disabled=${state.nextAfter === undefined} @click=${() => void app.nextPage()}>Next page</button>
    </nav>
  </section>`;
}
