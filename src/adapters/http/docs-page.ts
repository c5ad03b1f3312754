import { builtFile } from './built-file.js';

/**
 * Where the API reference page's renderer lives: the standalone browser bundle of Scalar's
 * @scalar/api-reference, which `npm run build` copies (scripts/copy-docs-renderer.ts) from a
 * devDependency to where package.json "imports" names it, so that the package serves it without
 * Scalar's dependency tree installed; never fetched from a CDN. Throws, naming the build, when it is
 * missing.
 */
export const scalarBundlePath = (): string => builtFile('#docs-renderer');

/** The paths of the API reference page and its scripts: open to all, limited per client address. */
export const DOCS_PATHS: ReadonlySet<string> = new Set(['/docs', '/docs/init.js', '/docs/scalar.js']);

/**
 * What the page may load: its own scripts and the document from this origin, nothing from elsewhere.
 * Styles may be inline because the renderer inserts its own style elements as it runs (some without a
 * nonce); a style cannot run code. Images and the icon may be data: URLs the renderer builds.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The page: no inline script (the CSP forbids it), paths relative so that it works behind a path prefix.
 * The mount point is not named `api-reference`: the bundle mounts a second, default-configured reference
 * (default fonts from a CDN included) on an element of that id by itself.
 */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Pet store inventory service: API reference</title>
    <link rel="icon" href="data:,">
  </head>
  <body>
    <div id="reference"></div>
    <script src="docs/scalar.js"></script>
    <script src="docs/init.js"></script>
  </body>
</html>
`;

/**
 * Renders /v1/openapi.json. Everything that would reach another host is off: the default fonts (a font
 * CDN), telemetry, the request client and its proxy, the agent and MCP features. Every tag starts open, so
 * the side menu lists every operation.
 */
export const DOCS_INIT_JS = `Scalar.createApiReference('#reference', ${JSON.stringify({
  url: 'v1/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  defaultOpenAllTags: true,
  documentDownloadType: 'json',
})});
`;
