import { html, render } from 'lit/html.js';
import { ConsoleApp } from './console-app.js';
import type { ConsoleState } from './console-state.js';
import { petView } from './pet-view.js';
import { QuantityChart } from './quantity-chart.js';
import { filterView, limitsView, signInView, tableView } from './stock-views.js';

/*
 * The stock console: the page GET /console serves, which signs in with an API key and works on the
 * public API through the project's typed client.
 */

const root = document.getElementById('console');
if (root === null) throw new Error('the page has no #console element');
const chart = new QuantityChart();

const view = (state: ConsoleState, app: ConsoleApp) =>
  state.session === undefined
    ? signInView(state, app)
    : html`${limitsView(state.limits, app)}
        ${state.pause === undefined ? '' : html`<p class="note conflict" role="status">${state.pause.message}</p>`}
        ${filterView(state, app)} ${tableView(state, app)} ${petView(state, app)}`;

/** The pet shown at the last draw: when another one opens, the focus goes to its heading. */
let shownPet: bigint | undefined;

const app: ConsoleApp = new ConsoleApp((state) => {
  render(view(state, app), root);
  chart.show(document.getElementById('quantity-chart'), state.pet?.history);
  const pet = state.pet?.item.petId;
  // A keyboard user lands on the pet they opened, and its forms are the next Tab away.
  if (pet !== undefined && pet !== shownPet) document.getElementById('pet-title')?.focus();
  shownPet = pet;
});
app.update({});
void app.resume();
