// JSON with 64-bit integers: outputs carry integers beyond 2^53 (kafka-4.2's metadata hash);
// `parseJson` keeps them as BigInt and `toJson` writes them back digit for digit, so records
// survive the round trip into `Replay` and exported files.

const BIG = '@sgc-int64:';

export function parseJson(text) {
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  // Integer literals outside strings: after `:`, `[` or `,`, before `,`, `]` or `}`.
  const marked = text.replace(/([:[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g, (m, pre, digits) => (Number.isSafeInteger(Number(digits)) ? m : `${pre}"${BIG}${digits}"`));
  return JSON.parse(marked, (k, v) => (typeof v === 'string' && v.startsWith(BIG) ? BigInt(v.slice(BIG.length)) : v));
}

export function toJson(value, space) {
  let big = false;
  const text = JSON.stringify(value, (k, v) => {
    if (typeof v === 'bigint') {
      big = true;
      return `${BIG}${v}`;
    }
    return v;
  }, space);
  return big ? text.replace(/"@sgc-int64:(-?\d+)"/g, '$1') : text;
}
