import { hash } from 'node:crypto';

/*
 * Entity tags and the two conditional fields that name them (RFC 9110 sections 8.8.3, 13.1.1, 13.1.2).
 * An inventory entry's tag is its version, strong: `"7"`. The whole list's tag is the store's stamp,
 * weak: the list is read after the stamp, so two answers under one stamp may differ by a write that
 * landed between the two reads, and a strong tag would promise identical bytes.
 */

/** One entity tag of a conditional field: its opaque text without the quotes, and whether it is weak. */
export interface EntityTag {
  readonly weak: boolean;
  readonly opaque: string;
}

/** What a conditional field names: any current representation (`*`), or the tags listed. */
export type EntityTagList = { readonly any: true } | { readonly any: false; readonly tags: readonly EntityTag[] };

const SP = 0x20;
const HTAB = 0x09;
const COMMA = 0x2c;
const DQUOTE = 0x22;

/** `etagc` of RFC 9110: any visible character but DQUOTE, or obs-text (Node reads header bytes as latin1). */
const isEtagc = (code: number): boolean =>
  code === 0x21 || (code >= 0x23 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);

/**
 * Parses `If-Match` or `If-None-Match`: `*`, or a comma-separated list of entity tags (`"1"`, `W/"1"`),
 * empty list elements allowed as RFC 9110 section 5.6.1 asks. `undefined` when the field breaks that
 * grammar or names no tag at all. A comma may sit inside a tag, so the list is scanned, not split.
 */
export function parseEntityTagList(field: string): EntityTagList | undefined {
  if (field.trim() === '*') return { any: true };
  const tags: EntityTag[] = [];
  let i = 0;
  const skip = (also: number): void => {
    while (i < field.length) {
      const code = field.charCodeAt(i);
      if (code !== SP && code !== HTAB && code !== also) break;
      i += 1;
    }
  };
  skip(COMMA);
  while (i < field.length) {
    const weak = field.startsWith('W/', i);
    if (weak) i += 2;
    if (field.charCodeAt(i) !== DQUOTE) return undefined;
    const start = i + 1;
    let end = start;
    while (end < field.length && isEtagc(field.charCodeAt(end))) end += 1;
    if (field.charCodeAt(end) !== DQUOTE) return undefined;
    tags.push({ weak, opaque: field.slice(start, end) });
    i = end + 1;
    skip(SP);
    if (i < field.length && field.charCodeAt(i) !== COMMA) return undefined;
    skip(COMMA);
  }
  return tags.length === 0 ? undefined : { any: false, tags };
}

// A version is written in canonical decimal, so only that spelling can be equal to one by strong
// comparison: "07" names no version. 15 digits keep it a safe integer.
const VERSION = /^[1-9][0-9]{0,14}$/;

/**
 * The versions an `If-Match` list names, by strong comparison (RFC 9110 section 8.8.3.2): weak tags
 * never match, and tags that are no version's tag match nothing. The list may come back empty: then no
 * version matches and the write is refused.
 */
export function versionsNamed(tags: readonly EntityTag[]): number[] {
  const versions: number[] = [];
  for (const tag of tags) if (!tag.weak && VERSION.test(tag.opaque)) versions.push(Number(tag.opaque));
  return versions;
}

/** The strong entity tag of an inventory entry at `version`. */
export const versionTag = (version: number): string => `"${version}"`;

const PLAIN_STAMP = /^[!#-~]{1,200}$/;

/**
 * The weak entity tag of the whole list at the store's `stamp`. A stamp of other characters (a store
 * is free to choose its stamps) is hashed into tag characters; the ones the stores make are sent as they are.
 */
export const listTag = (stamp: string): string =>
  `W/"${PLAIN_STAMP.test(stamp) ? stamp : hash('sha256', stamp, 'base64url')}"`;

/**
 * Whether `If-None-Match` names the representation whose tag is `current`, by weak comparison (RFC 9110
 * section 13.1.2: the opaque texts are equal, weak or not). An absent or malformed field names nothing:
 * the GET then answers in full, which is always a correct answer to a GET.
 */
export function noneMatchNames(field: string | undefined, current: string): boolean {
  if (field === undefined) return false;
  const list = parseEntityTagList(field);
  if (list === undefined) return false;
  if (list.any) return true;
  const opaque = current.slice(current.indexOf('"') + 1, -1);
  return list.tags.some((tag) => tag.opaque === opaque);
}
