/**
 * Layer rules: dependencies point inward (adapters -> application -> domain); and one rule per subpath of
 * the package (package.json "exports"): what its entry reaches, and which installed packages.
 */
const { peerDependencies } = require('./package.json');

/** `node_modules/<name>/` or its types, `node_modules/@types/<name>/`, for each of `names`. */
const packagesPath = (names) =>
  `^node_modules/(@types/)?(${names.map((n) => n.replace(/^@types\//, '').replace(/[.]/g, '\\.')).join('|')})/`;

/** What the core is made of: the modules `petstore-inventory` may reach. */
const CORE = '^src/(index\\.ts$|domain/|application/|adapters/(memory|failover|web)/)';

/** A subpath's entry reaches only `modules` of src and `packages` of node_modules. */
const subpath = (name, entry, modules, packages) => ({
  name: `subpath-${name}`,
  comment: `petstore-inventory/${name} (${entry}) reaches only ${modules} and the packages ${packages.join(', ') || 'none'}.`,
  severity: 'error',
  from: { path: `^${entry.replace(/[.]/g, '\\.')}$` },
  to: {
    reachable: true,
    path: '^(src|node_modules)/',
    pathNot: [modules, ...(packages.length > 0 ? [packagesPath(packages)] : [])],
  },
});

module.exports = {
  forbidden: [
    {
      name: 'core-imports-no-node-module-nor-package',
      comment:
        'The core (petstore-inventory) loads in Node, browsers and workers alike: no node: module, no package (Web Crypto through globalThis.crypto).',
      severity: 'error',
      from: { path: CORE },
      to: { dependencyTypesNot: ['local', 'type-only'] },
    },
    subpath('core', 'src/index.ts', CORE, []),
    subpath('sqlite', 'src/adapters/sqlite/index.ts', `${CORE}|^src/adapters/(sqlite|sql|shared)/`, ['better-sqlite3']),
    subpath('postgres', 'src/adapters/postgres/index.ts', `${CORE}|^src/adapters/(postgres|sql|shared)/`, ['pg']),
    subpath('redis', 'src/adapters/redis/index.ts', `${CORE}|^src/adapters/(redis|shared)/`, ['ioredis']),
    subpath('koa', 'src/adapters/http/index.ts', `${CORE}|^src/adapters/(http|shared)/`, [
      'koa',
      '@koa/router',
      'koa-bodyparser',
      'valibot',
      'lossless-json',
      'pino',
      'node',
    ]),
    {
      name: 'koa-serves-no-server-page',
      comment:
        "The API reference page (and Scalar) and the stock console are the server's: createHttpApp takes them as `pages`.",
      severity: 'error',
      from: { path: '^src/adapters/http/index\\.ts$' },
      to: { reachable: true, path: '^src/adapters/http/(docs|console)-(page|routes)\\.ts$' },
    },
    subpath('client', 'src/client/index.ts', '^src/(client/|adapters/shared/peer-packages\\.ts$)', ['lossless-json']),
    subpath('server', 'src/composition/index.ts', '^src/', [...Object.keys(peerDependencies), 'node']),
    {
      name: 'client-imports-no-node-module',
      comment: 'The typed client runs where fetch does: a browser too.',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports nothing outside src/domain: no framework, no I/O, no node module.',
      severity: 'error',
      from: { path: '^src/domain' },
      to: { pathNot: '^src/domain' },
    },
    {
      name: 'application-imports-only-domain',
      comment: 'src/application imports only itself and src/domain.',
      severity: 'error',
      from: { path: '^src/application' },
      to: { pathNot: '^src/(application|domain)' },
    },
    {
      name: 'testing-checks-ports-through-the-core-alone',
      comment:
        'src/testing (petstore-inventory/testing) imports only src/domain, src/application, itself and node: modules ' +
        '(node:assert): no adapter, so that a third party runs it over its own; no package, no test runner (the caller passes it in).',
      severity: 'error',
      from: { path: '^src/testing' },
      to: { pathNot: '^src/(domain|application|testing)/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'bench-and-support-import-no-test',
      comment:
        'bench/ and support/ (the servers started for real, shared by the tests and the benchmarks) import no file of tests/: ' +
        'what both need lives in support/, so a benchmark never depends on a test.',
      severity: 'error',
      from: { path: '^(bench|support)/' },
      to: { path: '^tests/' },
    },
    {
      name: 'package-imports-no-dev-folder',
      comment: 'src/ (the package) imports nothing of tests/, bench/ or support/: they are not shipped.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(tests|bench|support)/' },
    },
    {
      name: 'inversify-only-at-the-root',
      comment: 'The container is wired in src/composition and src/main.ts only.',
      severity: 'error',
      from: { pathNot: '^src/(composition|main\\.ts)' },
      to: { path: 'node_modules/(inversify|@inversifyjs|reflect-metadata)' },
    },
    {
      name: 'adapters-do-not-import-each-other',
      comment:
        'An adapter depends on ports and the domain, not on another adapter (the root wires them); shared/ and web/ (the platform clock, Web Crypto) serve them all.',
      severity: 'error',
      from: { path: '^src/adapters/([^/]+)/' },
      to: {
        path: '^src/adapters/',
        pathNot: ['^src/adapters/$1/', '^src/adapters/(shared|web)/', '^src/adapters/sql/'],
      },
    },
    {
      name: 'sql-rows-are-the-sql-stores',
      comment:
        'src/adapters/sql holds what the SQLite and PostgreSQL stores share (columns, stored outcomes): theirs alone.',
      severity: 'error',
      from: { pathNot: '^src/adapters/(sqlite|postgres|sql)/' },
      to: { path: '^src/adapters/sql/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
  },
};
