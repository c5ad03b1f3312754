/**
 * Writes the typed client's generated sources from the document the service serves (see
 * client-codegen.ts). Usage: npm run generate
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateClientSources } from './client-codegen.js';
import { fetchServedDocument, withExampleService } from './served-openapi.js';

const root = join(import.meta.dirname, '..');
const document = await withExampleService(fetchServedDocument);
for (const [path, text] of Object.entries(await generateClientSources(document))) {
  await writeFile(join(root, path), text);
  process.stdout.write(`wrote ${path}\n`);
}
