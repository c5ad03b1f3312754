/**
 * The packages a subpath of petstore-inventory needs are optional peers: the core needs none, and an
 * embedder installs only the drivers of the adapters it uses. Each subpath's entry checks them here
 * before it loads the modules that import them, so that a missing one fails with its name and the line
 * that installs it, not with ERR_MODULE_NOT_FOUND from a module deep inside.
 */

/** The error a subpath throws when packages it needs are not installed. */
export class MissingPeerError extends Error {
  override readonly name = 'MissingPeerError';

  constructor(
    /** The subpath imported, e.g. `petstore-inventory/sqlite`. */
    readonly subpath: string,
    /** The packages it needs that are not installed. */
    readonly missing: readonly string[],
  ) {
    super(
      `${subpath} needs ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not installed: ` +
        `npm install ${missing.join(' ')}`,
    );
  }
}

const notFound = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && 'code' in error && error.code === 'ERR_MODULE_NOT_FOUND';

/**
 * Whether `name` can be imported from this package. Node resolves it without loading it (a peer such as
 * the OpenTelemetry SDK is loaded only when used); where `import.meta.resolve` is missing it is imported.
 */
async function installed(name: string): Promise<boolean> {
  try {
    if (typeof import.meta.resolve === 'function') import.meta.resolve(name);
    else await import(name);
    return true;
  } catch (error) {
    // Found but not importable this way (a package without an entry for `import`) is still installed.
    return !notFound(error);
  }
}

/** Throws a {@link MissingPeerError} naming every package of `packages` that is not installed. */
export async function requirePeers(subpath: string, packages: readonly string[]): Promise<void> {
  const found = await Promise.all(packages.map(installed));
  const missing = packages.filter((_, i) => !found[i]);
  if (missing.length > 0) throw new MissingPeerError(subpath, missing);
}
