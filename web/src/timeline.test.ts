import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { HostRequest } from './api.ts';
import { layoutTimeline, statusClass } from './timeline.ts';

function req(startMs: number, durationMs: number, status: number | null, error: string | null = null): HostRequest {
  return { url: `https://a.example/${startMs}`, status, startedAt: new Date(startMs).toISOString(), durationMs, error };
}

describe('statusClass', () => {
  test('groups by HTTP status class', () => {
    assert.deepEqual(
      [200, 204, 301, 404, 429, 500, 503].map((s) => statusClass(req(0, 1, s))),
      ['2xx', '2xx', '3xx', '4xx', '4xx', '5xx', '5xx'],
    );
  });
  test('no status (timeout, refused connection) is an error', () => {
    assert.equal(statusClass(req(0, 1, null, 'timeout')), 'error');
  });
});

describe('layoutTimeline', () => {
  test('nothing to draw for no requests', () => {
    assert.deepEqual(layoutTimeline([], 1000).marks, []);
  });
  test('the axis runs from the first start to the last end; widths are durations', () => {
    const t0 = Date.UTC(2025, 0, 1);
    const layout = layoutTimeline([req(t0, 1000, 200), req(t0 + 9000, 1000, 404)], 1000);
    assert.equal(layout.from, t0);
    assert.equal(layout.to, t0 + 10_000);
    assert.deepEqual(
      layout.marks.map((m) => [m.x, m.width, m.statusClass]),
      [
        [0, 100, '2xx'],
        [900, 100, '4xx'],
      ],
    );
  });
  test('short requests stay visible, and a short history still spans the minimum span', () => {
    const t0 = Date.UTC(2025, 0, 1);
    const layout = layoutTimeline([req(t0, 1, 200)], 1000, 3, 5000);
    assert.equal(layout.to - layout.from, 5000);
    assert.equal(layout.marks[0].width, 3);
  });
  test('a mark never runs past the right edge', () => {
    const t0 = Date.UTC(2025, 0, 1);
    const layout = layoutTimeline([req(t0, 10, 200), req(t0 + 20_000, 1, 200)], 1000, 5);
    const last = layout.marks[1];
    assert.ok(last.x + last.width <= 1000, `${last.x} + ${last.width}`);
  });
  test('requests with an unreadable start are left out', () => {
    const bad = { ...req(0, 5, 200), startedAt: 'not a date' };
    assert.equal(layoutTimeline([bad], 1000).marks.length, 0);
  });
});
