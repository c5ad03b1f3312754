import { readFileSync } from 'node:fs';
import { builtFile } from './built-file.js';

/** The stock console's bundle: its script and its style sheet, as `npm run build` writes them. */
export interface ConsoleBundle {
  readonly script: Buffer;
  readonly style: Buffer;
}

/**
 * Reads the console's bundle once, which `npm run build` writes (scripts/build-console.ts) where
 * package.json "imports" names it; throws, naming the build, when it is missing, so that a server
 * asked to serve the console stops at start rather than at its first reader.
 */
export function readConsoleBundle(): ConsoleBundle {
  const [script, style] = ['console.js', 'console-style.css'].map((name) => builtFile(`#console-bundle/${name}`));
  return { script: readFileSync(script as string), style: readFileSync(style as string) };
}

/** The paths of the console page and its files: open to all, limited per client address. */
export const CONSOLE_PATHS: ReadonlySet<string> = new Set(['/console', '/console/console.js', '/console/console.css']);

/**
 * What the page may load: its own script and sheet, and the API of this origin; nothing inline, nothing
 * from elsewhere (the page's empty icon is a data: URL). The chart sets sizes through the CSSOM, which style-src does not govern.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The page: no inline script (the CSP forbids it), paths relative so that it works behind a path prefix. */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Stock console: pet store inventory</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="console/console.css">
    <script src="console/console.js" defer></script>
  </head>
  <body>
    <h1>Stock console</h1>
    <main id="console"><noscript>The stock console needs JavaScript.</noscript></main>
  </body>
</html>
`;
