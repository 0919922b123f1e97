// Pure parsing of what a person types into the seed forms.

/** Parses the depth field: a whole number 0–10, or null when invalid. */
export function parseDepth(raw: string): number | null {
  if (!/^\s*\d{1,2}\s*$/.test(raw)) return null;
  const depth = Number(raw);
  return depth >= 0 && depth <= 10 ? depth : null;
}

/** Splits pasted text into seed lines: trimmed, blank lines dropped, duplicates kept once. */
export function seedLines(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== ''),
    ),
  ];
}
