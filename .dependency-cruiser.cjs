/** Layer rules: dependencies point inward (adapters -> application -> domain). */
module.exports = {
  forbidden: [
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
      name: 'inversify-only-at-the-root',
      comment: 'The container is wired in src/composition and src/main.ts only.',
      severity: 'error',
      from: { pathNot: '^src/(composition|main\\.ts)' },
      to: { path: 'node_modules/(inversify|@inversifyjs|reflect-metadata)' },
    },
    {
      name: 'adapters-do-not-import-each-other',
      comment: 'An adapter depends on ports and the domain, not on another adapter (the root wires them).',
      severity: 'error',
      from: { path: '^src/adapters/([^/]+)/' },
      to: { path: '^src/adapters/', pathNot: ['^src/adapters/$1/', '^src/adapters/shared/'] },
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
