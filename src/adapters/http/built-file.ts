import { createRequire } from 'node:module';

/**
 * The path of a file that `npm run build` writes for the pages (the console's bundle, the reference
 * page's renderer), by its name in package.json "imports". Node resolves the name from the root of the
 * package this module belongs to, so the same name finds dist's file from src (tsx, the tests) and from
 * dist (npm start, the installed package), and the build's layout is written once, beside "files".
 * Throws, naming the build, when the file is missing, so that a server stops at start rather than at
 * its first reader.
 */
export function builtFile(name: `#${string}`): string {
  try {
    return createRequire(import.meta.url).resolve(name);
  } catch (error) {
    throw new Error(`${name} is missing (package.json "imports" names where); run npm run build`, { cause: error });
  }
}
