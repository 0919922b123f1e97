import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  type EngineRun,
  type EngineSide,
  engineSection,
  engineSides,
  parseEngines,
  parseFsync,
  roundOrder,
  summarizeSides,
} from './engine-compare.ts';

const SQLITE: EngineSide = { engine: 'sqlite' };
const PG_OFF: EngineSide = { engine: 'postgres', fsync: false };
const PG_ON: EngineSide = { engine: 'postgres', fsync: true };

function run(side: EngineSide, round: number, over: Partial<EngineRun> = {}): EngineRun {
  return {
    side,
    round,
    pagesStored: 1500,
    expected: 1500,
    windowMs: 10_000,
    loadStart: 2,
    primaryMs: 3000,
    workersMs: 6000,
    postgresMs: side.engine === 'sqlite' ? undefined : 1500,
    ...over,
  };
}

describe('parseEngines', () => {
  test('without --engine: both engines when PostgreSQL is installed', () => {
    assert.deepEqual(parseEngines(undefined, undefined), { engines: ['sqlite', 'postgres'] });
  });

  test('without --engine and no PostgreSQL: SQLite alone, and the note says why', () => {
    const r = parseEngines(undefined, 'no initdb on PATH');
    assert.deepEqual(r.engines, ['sqlite']);
    assert.match(r.note ?? '', /SQLite alone.*not found.*no initdb on PATH/);
  });

  test('an explicit list is kept in order without repeats; PostgreSQL asked for and missing is refused', () => {
    assert.deepEqual(parseEngines('postgres,sqlite,postgres', undefined).engines, ['postgres', 'sqlite']);
    assert.deepEqual(parseEngines('sqlite', 'missing').engines, ['sqlite']);
    assert.throws(() => parseEngines('postgres', 'missing'), /engine-compare: .*not installed: missing/);
    assert.throws(() => parseEngines('mysql', undefined), /engine-compare: --engine takes/);
  });
});

describe('sides and their order', () => {
  test('--pg-fsync gives one PostgreSQL side per setting, after SQLite', () => {
    assert.deepEqual(parseFsync('off,on'), [false, true]);
    assert.throws(() => parseFsync('maybe'), /engine-compare: --pg-fsync takes/);
    assert.deepEqual(engineSides(['postgres', 'sqlite'], [false, true]), [SQLITE, PG_OFF, PG_ON]);
    assert.deepEqual(engineSides(['sqlite'], [false, true]), [SQLITE]);
  });

  test('the engines take turns: odd rounds run the sides in reverse', () => {
    const sides = [SQLITE, PG_OFF, PG_ON];
    assert.deepEqual(roundOrder(sides, 0), [SQLITE, PG_OFF, PG_ON]);
    assert.deepEqual(roundOrder(sides, 1), [PG_ON, PG_OFF, SQLITE]);
    assert.deepEqual(sides, [SQLITE, PG_OFF, PG_ON], 'the given list is left as it was');
  });
});

describe('summarizeSides', () => {
  test("each side's mean pages/s over its rounds and its ratio to SQLite's", () => {
    const runs = [
      run(SQLITE, 0, { windowMs: 10_000 }), // 150 pages/s
      run(PG_OFF, 0, { windowMs: 15_000 }), // 100
      run(PG_OFF, 1, { windowMs: 30_000 }), // 50
      run(SQLITE, 1, { windowMs: 7_500 }), // 200
    ];
    const [sqlite, pg] = summarizeSides([SQLITE, PG_OFF, PG_ON], runs);
    assert.equal(sqlite.pagesPerSec, 175);
    assert.equal(sqlite.ratio, 1);
    assert.equal(sqlite.postgresMsPerPage, undefined);
    assert.equal(pg.rounds, 2);
    assert.equal(pg.pagesPerSec, 75);
    assert.equal(pg.ratio, 75 / 175);
    assert.equal(pg.primaryMsPerPage, 2);
    assert.equal(pg.workersMsPerPage, 4);
    assert.equal(pg.postgresMsPerPage, 1);
    assert.equal(sqlite.totalMsPerPage, 6, 'primary 2 + workers 4');
    assert.equal(pg.totalMsPerPage, 7, 'primary 2 + workers 4 + server 1');
    assert.equal(pg.cpuRatio, 6 / 7);
  });

  test('a crawl short of its pages gets no rate, so it cannot flatter its side', () => {
    const [, pg] = summarizeSides(
      [SQLITE, PG_OFF],
      [run(SQLITE, 0), run(PG_OFF, 0, { pagesStored: 1400, windowMs: 1000 }), run(PG_OFF, 1, { windowMs: 20_000 })],
    );
    assert.equal(pg.pagesPerSec, 75);
  });
});

describe('engineSection', () => {
  test('the side-by-side shows each side with its ratio and verdict, and each crawl with its load', () => {
    const text = engineSection({
      sides: [SQLITE, PG_OFF, PG_ON],
      runs: [
        run(SQLITE, 0, { loadStart: 3.25 }),
        run(PG_OFF, 0, { windowMs: 12_500, loadStart: 4 }),
        run(PG_ON, 0, { windowMs: 25_000, pagesStored: 1499 }),
      ],
      workers: 2,
      settings: 'fsync off or on',
    }).join('\n');
    assert.match(text, /\| SQLite \| 1 \| \*\*150\.0\*\* \| 1 \| 2\.00 ms \| 4\.00 ms \| n\/a \| 6\.00 ms \| 1\.00 \|/);
    assert.match(
      text,
      /\| PostgreSQL, fsync off \| 1 \| \*\*120\.0\*\* \| \*\*0\.80\*\* \(meets ≥ 0\.7\) \| 2\.00 ms \| 4\.00 ms \| 1\.00 ms \| 7\.00 ms \| 0\.86 \|/,
    );
    assert.match(text, /\| PostgreSQL, fsync on \| 1 \| \*\*n\/a\*\* \| n\/a \|/);
    assert.match(text, /\| 1 \| SQLite \| 3\.3 \| 150\.0 \| {2}\|/);
    assert.match(text, /\| 1 \| PostgreSQL, fsync off \| 4\.0 \| 120\.0 \| 0\.80 \|/);
    assert.match(text, /\| 1 \| PostgreSQL, fsync on \| 2\.0 \| n\/a \(only 1499 of 1500 stored\) \|/);
    assert.match(text, /CRAWL_WORKERS=2/);
    assert.match(text, /fsync off or on/);
  });

  test('below the target is marked as such', () => {
    const text = engineSection({
      sides: [SQLITE, PG_ON],
      runs: [run(SQLITE, 0), run(PG_ON, 0, { windowMs: 30_000 })],
      workers: 2,
      settings: 's',
      note: 'a note',
    }).join('\n');
    assert.match(text, /\*\*0\.33\*\* \(\*\*below\*\* ≥ 0\.7\)/);
    assert.match(text, /Note: a note\./);
  });
});
