/**
 * `npm test`'s side-by-side runner as npm runs it (a real process running real commands): the run fails when
 * any command fails, whichever it is, and every command's output is there in full, the held ones whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const RUNNER = fileURLToPath(new URL('./side-by-side.ts', import.meta.url));

/** A shell command that prints `lines` lines of `name` (one write each) and exits with `code`. */
function printer(name: string, lines: number, code: number): string {
  return `${JSON.stringify(process.execPath)} -e "for (let i = 0; i < ${lines}; i++) console.log('${name} line ' + i); process.exitCode = ${code}"`;
}

/** Runs the runner on `commands`; its exit code and everything it wrote. */
function runSideBySide(commands: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, ...commands], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, out })));
}

/** The lines of `out` that belong to `name`'s printer, in order. */
function linesOf(out: string, name: string): string[] {
  return out.split('\n').filter((l) => l.startsWith(`${name} line `));
}

test('both pass: exit 0, both outputs whole, one passed line per command', async () => {
  const { code, out } = await runSideBySide([printer('unit', 300, 0), printer('e2e', 300, 0)]);
  assert.equal(code, 0, out);
  assert.deepEqual(
    linesOf(out, 'unit'),
    Array.from({ length: 300 }, (_, i) => `unit line ${i}`),
  );
  assert.deepEqual(
    linesOf(out, 'e2e'),
    Array.from({ length: 300 }, (_, i) => `e2e line ${i}`),
  );
  assert.match(out, /side-by-side: passed \(exit 0, \d+ s\): .*unit line/);
  assert.match(out, /side-by-side: passed \(exit 0, \d+ s\): .*e2e line/);
});

test('the held command fails: the run fails, and its output is one block under its header', async () => {
  const { code, out } = await runSideBySide([printer('unit', 50, 0), printer('e2e', 50, 3)]);
  assert.equal(code, 1, out);
  const block = out.slice(out.indexOf('── side-by-side: output of'), out.indexOf('── end of'));
  assert.deepEqual(
    linesOf(block, 'e2e'),
    Array.from({ length: 50 }, (_, i) => `e2e line ${i}`),
    'held output whole',
  );
  assert.deepEqual(linesOf(block, 'unit'), [], 'nothing of the live command inside the held block');
  assert.match(out, /side-by-side: FAILED \(exit 3, \d+ s\): .*e2e line/);
  assert.match(out, /side-by-side: passed \(exit 0, \d+ s\): .*unit line/);
});

test('the streamed command fails: the run fails and the other still runs to its end', async () => {
  const { code, out } = await runSideBySide([printer('unit', 20, 1), printer('e2e', 20, 0)]);
  assert.equal(code, 1, out);
  assert.equal(linesOf(out, 'unit').length, 20);
  assert.equal(linesOf(out, 'e2e').length, 20);
  assert.match(out, /side-by-side: FAILED \(exit 1, \d+ s\): .*unit line/);
});
