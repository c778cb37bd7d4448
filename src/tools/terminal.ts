/**
 * Text from a drop (its manifest's version, description, file names) as the CLI may print it to
 * a terminal: control characters and the bidirectional overrides are written as escapes, so that
 * a drop cannot set the terminal's title or colours, move its cursor, or reorder what is shown
 * (security review, finding 11). Tabs stay; each report line is escaped on its own.
 */
// C0 but tab, DEL and C1 (0x9b is a one-byte CSI on some terminals), and the bidi controls.
const UNPRINTABLE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** A report of several lines, each made printable. */
export function printableLines(lines: readonly string[]): string {
  return lines.map(printable).join('\n');
}
