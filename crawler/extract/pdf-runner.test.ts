/**
 * PDF extraction in its worker thread, on PDFs made by the tests with text we know: pages, titles and
 * non-Latin text come out as written; hostile documents (encrypted, truncated, nested deep, a
 * decompression bomb, one slower than the time cap) fail with their reason, within bounded time and
 * memory, and the next document is read as if nothing happened.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { extractPdf, PDF_LIMITS } from './pdf-runner.ts';
import { FetchFailure } from '../common/fetch-failure.ts';
import { bombPdf, encryptedPdf, nestedPdf, simplePdf, textPdf, truncatedPdf } from '../../test-support/pdf-files.ts';

async function refusal(data: Buffer, limits = PDF_LIMITS): Promise<FetchFailure> {
  try {
    await extractPdf(data, 'https://docs.example/x.pdf', limits);
  } catch (err) {
    assert.ok(err instanceof FetchFailure, String(err));
    return err;
  }
  assert.fail('the document was read, though it should not be');
}

describe('PDF extraction in a worker thread', () => {
  test('several pages, a title, Cyrillic and Greek text: each page as written', async () => {
    const pdf = await textPdf({
      title: 'Телескоп: руководство',
      pages: [
        { lines: ['Getting started', 'Привет, мир: the eyepiece goes first.'], heading: true },
        { lines: ['Καλημέρα κόσμε', 'Second page zebracrossing'] },
        { lines: ['Third page, last words'] },
      ],
    });
    const text = await extractPdf(pdf, 'https://docs.example/manual.pdf');
    assert.equal(text.title, 'Телескоп: руководство');
    assert.equal(text.heading, 'Getting started');
    assert.equal(text.pageCount, 3);
    assert.equal(text.truncated, false);
    assert.deepEqual(
      text.pages.map((p) => p.trim().split('\n')),
      [
        ['Getting started', 'Привет, мир: the eyepiece goes first.'],
        ['Καλημέρα κόσμε', 'Second page zebracrossing'],
        ['Third page, last words'],
      ],
    );
  });

  test('pages past maxPages are left out and the text says it was cut', async () => {
    const pdf = await textPdf({ pages: [{ lines: ['one'] }, { lines: ['two'] }, { lines: ['three'] }] });
    const text = await extractPdf(pdf, 'x', { ...PDF_LIMITS, maxPages: 2 });
    assert.deepEqual([text.pages.length, text.pageCount, text.truncated], [2, 3, true]);
  });

  test('an encrypted PDF (a user password) is refused as encrypted', async () => {
    const failure = await refusal(encryptedPdf('Secret telescope text', 'secret'));
    assert.equal(failure.code, 'pdf-encrypted');
    assert.equal(failure.kind, 'fatal');
    assert.match(failure.message, /^pdf: https:\/\/docs\.example\/x\.pdf is encrypted with a password/);
  });

  test('a truncated PDF is refused as broken', async () => {
    const failure = await refusal(truncatedPdf(await textPdf({ pages: [{ lines: ['whole'] }, { lines: ['half'] }] })));
    assert.equal(failure.code, 'pdf-broken');
    assert.match(failure.message, /truncated or damaged/);
  });

  test('objects nested 100,000 deep are refused, not a crash', async () => {
    const failure = await refusal(nestedPdf(100_000));
    assert.equal(failure.code, 'pdf-broken');
    assert.match(failure.message, /nests its objects too deeply/);
  });

  test('a decompression bomb is stopped by the memory watch or the time cap, and memory stays bounded', async () => {
    const bomb = bombPdf(256);
    const limits = { ...PDF_LIMITS, timeoutMs: 6000, memoryMb: 96, heapMb: 64 };
    const rssBefore = process.memoryUsage().rss;
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const started = performance.now();
    const failure = await refusal(bomb, limits);
    clearInterval(sampler);
    const took = performance.now() - started;
    console.log(
      `bomb: ${failure.code} after ${Math.round(took)} ms; RSS ${Math.round(rssBefore / 2 ** 20)} → peak ${Math.round(peak / 2 ** 20)} MiB`,
    );
    assert.ok(['pdf-memory', 'pdf-timeout'].includes(failure.code), failure.message);
    assert.ok(took < limits.timeoutMs + 3000, `stopped within its time cap (${Math.round(took)} ms)`);
    assert.ok(
      peak - rssBefore < 200 * 2 ** 20,
      `the process grew by ${Math.round((peak - rssBefore) / 2 ** 20)} MiB, not by the bomb's 256 MiB`,
    );
  });

  test('a document slower than the time cap is stopped with that reason, and the next one is read', async () => {
    const failure = await refusal(simplePdf('slow'), { ...PDF_LIMITS, timeoutMs: 1 });
    assert.equal(failure.code, 'pdf-timeout');
    assert.match(failure.message, /took longer than 0.001 s to read/);
    const after = await extractPdf(simplePdf('still reading (fine)'), 'y');
    assert.deepEqual(after.pages, ['still reading (fine)']);
    assert.equal(after.heading, 'still reading (fine)');
  });
});
