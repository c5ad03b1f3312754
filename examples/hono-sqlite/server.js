/** Serves the stock app on PORT (default 3000) over the SQLite file at STOCK_DB (default stock.db). */
import { serve } from '@hono/node-server';
import { createStockApp } from './stock-app.js';

const { app, close } = createStockApp({ path: process.env.STOCK_DB ?? 'stock.db' });
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.env.PORT ?? 3000) }, (info) =>
  console.log(`listening on http://127.0.0.1:${info.port}`),
);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => server.close(() => void close().then(() => process.exit(0))));
}
