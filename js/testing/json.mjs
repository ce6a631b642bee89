// JSON helpers of the testing tools.

import { stringify } from '../scenario.mjs';

/** A deep copy through JSON (undefined stays undefined). */
export function clone(value) {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** JSON text of an input: JSON.stringify's, or `stringify`'s where it holds BigInts. */
export function toText(input) {
  try {
    return JSON.stringify(input);
  } catch (e) {
    if (e instanceof TypeError) return stringify(input);
    throw e;
  }
}
