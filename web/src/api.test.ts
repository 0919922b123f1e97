import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { forPeople } from './api.ts';

describe('forPeople', () => {
  test("drops the server module's prefix and capitalizes", () => {
    assert.equal(forPeople('url: "ftp://x/" uses the ftp: scheme'), '"ftp://x/" uses the ftp: scheme');
    assert.equal(forPeople('search: nothing to search for'), 'Nothing to search for');
  });
  test('leaves a message without a prefix alone', () => {
    assert.equal(forPeople('Something went wrong'), 'Something went wrong');
  });
});

describe('the API types', () => {
  test("are the server's own: api.ts declares no type of its own, it re-exports those of the server's schemas", () => {
    const file = fileURLToPath(new URL('./api.ts', import.meta.url));
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const declared: string[] = [];
    const sources: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node))
        declared.push(node.name.text);
      // Type imports and re-exports must come from the server's layers; value imports of the web's own modules may not.
      if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
        const typeOnly = ts.isImportDeclaration(node) ? node.importClause?.isTypeOnly === true : node.isTypeOnly;
        if (typeOnly && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
          sources.push(node.moduleSpecifier.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    assert.deepEqual(declared, [], "a shape declared here would be a second copy of the server's");
    assert.ok(sources.length > 0);
    for (const from of sources)
      assert.match(from, /^\.\.\/\.\.\/(server|shared|crawler)\//, `${from}: API types come from the server's layers`);
  });
});
