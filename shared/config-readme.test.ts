/**
 * README.md's configuration table is the contract for the settings: it names every variable SETTINGS declares
 * (config-settings.ts), in the same order, with the same default, and no variable that does not exist.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { projectPath } from './project-root.ts';
import { SETTINGS } from './config-settings.ts';

/** The rows of README.md's configuration table: variable and default cell, in order. */
function readmeRows(): Array<{ env: string; shown: string }> {
  const readme = readFileSync(projectPath('README.md'), 'utf8');
  const start = readme.indexOf('\n## Configuration\n');
  assert.ok(start >= 0, 'README.md has a "## Configuration" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    )
    .slice(2); // the header and the rule under it
  return rows.map(([name, shown]) => {
    const m = /^`([A-Z][A-Z0-9_]*)`$/.exec(name);
    assert.ok(m, `a README configuration row names one variable in backticks: ${JSON.stringify(name)}`);
    return { env: m[1], shown };
  });
}

test("README.md's configuration table lists exactly the declared settings, in order, with their defaults", () => {
  const declared = Object.values(SETTINGS).map((s) => ({ env: s.env, shown: s.shown }));
  const documented = readmeRows();
  const declaredNames = new Set(declared.map((s) => s.env));
  const documentedNames = new Set(documented.map((r) => r.env));
  assert.deepEqual(
    declared.filter((s) => !documentedNames.has(s.env)).map((s) => s.env),
    [],
    'every declared variable has a README row',
  );
  assert.deepEqual(
    documented.filter((r) => !declaredNames.has(r.env)).map((r) => r.env),
    [],
    'no README row names a variable that is not declared',
  );
  assert.deepEqual(documented, declared, 'same order, same default as shared/config-settings.ts');
});

test('every setting is declared with its own variable and a one-line description', () => {
  const names = Object.values(SETTINGS).map((s) => s.env);
  assert.equal(new Set(names).size, names.length, 'no variable declared twice');
  for (const s of Object.values(SETTINGS)) {
    assert.ok(s.about.length > 0 && !s.about.includes('\n'), `${s.env}: one line of description`);
  }
});
