/**
 * Just enough Markdown reading to check the docs' links: the anchors GitHub gives headings, and
 * the link targets outside code.
 */

/** Fenced code blocks, whose text is never a heading or a link. */
function withoutFences(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) {
      fence = marker[0]!;
      return '';
    }
    if (fence !== null) {
      if (marker?.[0] === fence) fence = null;
      return '';
    }
    return line;
  });
}

/**
 * GitHub's anchor for a heading: lower case, punctuation dropped (hyphens and underscores kept),
 * spaces as hyphens; a repeated heading gets -1, -2, ...
 */
export function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
}

export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The targets of inline links and images, `[text](target)`, outside code, with their line numbers. */
export function linkTargets(markdown: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  withoutFences(markdown).forEach((text, index) => {
    const outsideCode = text.replace(/`[^`]*`/g, '');
    for (const match of outsideCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ target: match[1]!, line: index + 1 });
    }
  });
  return found;
}
