const LINE_WIDTH = 120;

const isPrimitive = (value: unknown): boolean => value === null || typeof value !== 'object';

/** Numbers on as few lines as fit, each line filled up to the width, as Biome lays out a long list of them. */
function fill(items: readonly string[], inner: string): string[] {
  const lines: string[] = [];
  let line = '';
  items.forEach((item, i) => {
    const piece = i + 1 < items.length ? `${item},` : item;
    const joined = line === '' ? piece : `${line} ${piece}`;
    if (line !== '' && inner.length + joined.length > LINE_WIDTH) {
      lines.push(line);
      line = piece;
    } else {
      line = joined;
    }
  });
  return [...lines, line];
}

/** `value` as JSON; `prefix` is how many columns precede it on its line, `last` whether nothing follows it there. */
function write(value: unknown, indent: string, prefix: number, last: boolean): string {
  if (isPrimitive(value)) return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((v) => JSON.stringify(v));
    if (value.every(isPrimitive)) {
      // A comma after the closing bracket counts towards the width too.
      const flat = `[${items.join(', ')}]`;
      if (prefix + flat.length + (last ? 0 : 1) <= LINE_WIDTH) return flat;
    }
    if (value.every((v) => typeof v === 'number')) {
      return `[\n${fill(items, inner)
        .map((l) => `${inner}${l}`)
        .join('\n')}\n${indent}]`;
    }
    const lines = value.map((v, i) => `${inner}${write(v, inner, inner.length, i + 1 === value.length)}`);
    return `[\n${lines.join(',\n')}\n${indent}]`;
  }
  // As JSON.stringify does, a key whose value is undefined or a function is left out.
  const entries = Object.entries(value as object).filter(([, v]) => v !== undefined && typeof v !== 'function');
  if (entries.length === 0) return '{}';
  const lines = entries.map(([key, v], i) => {
    const head = `${inner}${JSON.stringify(key)}: `;
    return `${head}${write(v, inner, head.length, i + 1 === entries.length)}`;
  });
  return `{\n${lines.join(',\n')}\n${indent}}`;
}

/**
 * JSON text laid out as the project's formatter (Biome) lays it out, so that a file the benchmark writes
 * passes `biome check` as written: objects one key a line, arrays of plain values on one line when they
 * fit in 120 columns, else numbers filled line by line and anything else one a line.
 */
export const formatJson = (value: unknown): string => `${write(value, '', 0, true)}\n`;
