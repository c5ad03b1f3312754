const LINE_WIDTH = 120;

const isPrimitive = (value: unknown): boolean => value === null || typeof value !== 'object';

function write(value: unknown, indent: string, prefix: number): string {
  if (isPrimitive(value)) return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const flat = `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
    if (value.every(isPrimitive) && prefix + flat.length <= LINE_WIDTH) return flat;
    return `[\n${value.map((v) => `${inner}${write(v, inner, inner.length)}`).join(',\n')}\n${indent}]`;
  }
  // As JSON.stringify does, a key whose value is undefined or a function is left out.
  const entries = Object.entries(value as object).filter(([, v]) => v !== undefined && typeof v !== 'function');
  if (entries.length === 0) return '{}';
  const lines = entries.map(([key, v]) => {
    const head = `${inner}${JSON.stringify(key)}: `;
    return `${head}${write(v, inner, head.length)}`;
  });
  return `{\n${lines.join(',\n')}\n${indent}}`;
}

/**
 * JSON text laid out as the project's formatter (Biome) lays it out, so that a file the benchmark writes
 * passes `biome check` as written: objects one key a line, arrays of plain values on one line when they
 * fit in 120 columns.
 */
export const formatJson = (value: unknown): string => `${write(value, '', 0)}\n`;
