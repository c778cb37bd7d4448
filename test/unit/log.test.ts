/** The request log's batching (lib/log.ts): lines go out in order, a batch at a time, and none waits long. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { batchedLines } from '../../src/lib/log.js';

/** A stand-in for pino's destination that keeps what is written to it. */
function destination() {
  const writes: string[] = [];
  const out = { write: (text: string) => writes.push(text), flush: (callback?: () => void) => callback?.() };
  return { writes, out: out as unknown as Parameters<typeof batchedLines>[0] };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the request log', () => {
  it('writes lines a batch of 12 KB at a time, in the order they came', () => {
    const { writes, out } = destination();
    const lines = batchedLines(out);
    const line = (i: number) => `{"n":${i},"pad":"${'x'.repeat(90)}"}\n`;
    for (let i = 0; i < 100; i++) lines.write(line(i));
    expect(writes).toHaveLength(0);
    for (let i = 100; i < 200; i++) lines.write(line(i));
    expect(writes).toHaveLength(1);
    expect(writes[0]!.length).toBeGreaterThanOrEqual(12_288);
    lines.flush();
    expect(writes.join('')).toBe(Array.from({ length: 200 }, (_, i) => line(i)).join(''));
  });

  it('writes lines of any length and alphabet whole, in the order they came', () => {
    const { writes, out } = destination();
    const lines = batchedLines(out);
    const sent = [
      '{"path":"/budget/api/organizations/Ministère de l\'Éducation"}\n',
      `{"msg":"${'é'.repeat(5_000)}"}\n`,
      `{"stack":"${'x'.repeat(40_000)}"}\n`,
      '{"emoji":"📊 €"}\n',
    ];
    for (let i = 0; i < 300; i++) lines.write(sent[i % sent.length]!);
    lines.flush();
    expect(writes.join('')).toBe(Array.from({ length: 300 }, (_, i) => sent[i % sent.length]).join(''));
  });

  it('writes the lines of a quiet server within 200 ms', () => {
    vi.useFakeTimers();
    const { writes, out } = destination();
    const lines = batchedLines(out);
    lines.write('{"msg":"one"}\n');
    vi.advanceTimersByTime(150);
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(60);
    expect(writes).toEqual(['{"msg":"one"}\n']);
  });
});
