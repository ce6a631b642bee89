// Names of Kafka's numbers (errors, statuses, record types) in either dialect, and bytes as hex.

// The numbers are the package's (api.mjs); the page spells record types as Kafka's schemas do.
import { ErrorCodesByDialect, RecordTypesByDialect, StatusCodesByDialect, codeName } from './api.mjs';

const table = (tables, dialect) => tables[dialect] ?? tables['kip1071-draft'];

export function errorName(code, dialect = 'kip1071-draft') {
  return codeName(table(ErrorCodesByDialect, dialect), Number(code)) ?? `error ${code}`;
}

export function statusName(code, dialect = 'kip1071-draft') {
  return codeName(table(StatusCodesByDialect, dialect), Number(code)) ?? `status ${code}`;
}

/** `GroupMetadata`, `CurrentMemberAssignment`, ... (the schemas' names without `StreamsGroup`). */
export function recordName(type, dialect = 'kip1071-draft') {
  const name = codeName(table(RecordTypesByDialect, dialect), Number(type));
  return name ? name.toLowerCase().replace(/(^|_)(\w)/g, (_, __, c) => c.toUpperCase()) : '';
}

/** Base64 (as `keyBytes` / `valueBytes` carry it) as spaced hex bytes. */
export function hexOf(base64) {
  if (typeof base64 !== 'string') return '';
  const b = atob(base64);
  const out = [];
  for (let i = 0; i < b.length; i++) out.push(b.charCodeAt(i).toString(16).padStart(2, '0'));
  return out.join(' ');
}
