/**
 * Runs shell commands at the same time, for `npm test`'s phases that need not wait on each other (the unit
 * and integration files beside the browser tests, both on the build made before): the
 * first command's output streams as it comes, each other's is held and printed whole, under a header, when
 * that command ends, so no two outputs interleave line by line. Waits for every command, then prints one
 * line per command and exits 1 if any failed (a failure never cuts the others short: their outputs are read
 * in full). Usage: `node --import tsx test-support/side-by-side.ts '<command>' '<command>' ...`.
 */
import { spawn } from 'node:child_process';

/** How one command ended. */
interface CommandResult {
  command: string;
  /** Its exit code, or the signal that ended it. */
  exit: number | NodeJS.Signals;
  seconds: number;
}

/** Whether a command ended well: exit code 0. */
function passed(r: CommandResult): boolean {
  return r.exit === 0;
}

/** The closing lines (one per command, in the order given) and the exit code of the whole run: 1 if any failed. */
function verdict(results: readonly CommandResult[]): { lines: string[]; exitCode: number } {
  const lines = results.map(
    (r) =>
      `side-by-side: ${passed(r) ? 'passed' : 'FAILED'} (${typeof r.exit === 'number' ? `exit ${r.exit}` : r.exit}, ${r.seconds.toFixed(0)} s): ${r.command}`,
  );
  return { lines, exitCode: results.every(passed) ? 0 : 1 };
}

/** Runs `command` in a shell; `live` streams its output, else it is held and written whole when it ends. */
function run(command: string, live: boolean): Promise<CommandResult> {
  const started = performance.now();
  const child = spawn(command, { shell: true, stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
  const held: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => held.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => held.push(chunk));
  return new Promise((resolve, reject) => {
    child.once('error', (err) =>
      reject(new Error(`side-by-side: could not start \`${command}\` (${err.message}); check the command`)),
    );
    child.once('close', (code, signal) => {
      const result: CommandResult = {
        command,
        exit: code ?? signal ?? 1,
        seconds: (performance.now() - started) / 1000,
      };
      if (!live) {
        const output = Buffer.concat(held).toString('utf8');
        process.stdout.write(
          `\n── side-by-side: output of \`${command}\` (ended after ${result.seconds.toFixed(0)} s) ──\n${output}${output.endsWith('\n') || output === '' ? '' : '\n'}── end of \`${command}\` ──\n\n`,
        );
      }
      resolve(result);
    });
  });
}

const commands = process.argv.slice(2);
if (commands.length === 0) {
  process.stderr.write("side-by-side: no command given; usage: side-by-side.ts '<command>' '<command>' ...\n");
  process.exit(2);
}
const results = await Promise.all(commands.map((command, i) => run(command, i === 0)));
const { lines, exitCode } = verdict(results);
process.stdout.write(`${lines.join('\n')}\n`);
process.exitCode = exitCode;
