/** Which hosts a round of a window's refill reads, and how many rows each (window-fill.ts planRound). Pure. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type HostFill, hostFill, planRound } from './window-fill.ts';
import type { HostWindow } from './host-window.ts';

/** A host's window with `entries` jobs, its cursor at (`at`, `id`). */
function host(name: string, entries: number, at = 0, id = 0): HostWindow {
  return {
    origin: `https://${name}.example`,
    entries: new Map(Array.from({ length: entries }, (_, i) => [1000 + i, 0])),
    tailAt: at,
    tailId: id,
    more: true,
    waiting: 100,
    retries: [],
  };
}

const planned = (fills: readonly HostFill[], cap: number, left: number) =>
  planRound(fills, cap, left).reads.map((r) => `${new URL(r.origin).hostname.split('.')[0]}:${r.limit}`);

test('a round reads what each window lacks, from its cursor, all hosts at once while within what may be passed over', () => {
  const a = hostFill(host('a', 1, 5, 42), 256, false);
  const b = hostFill(host('b', 0), 256, false);
  const c = hostFill(host('c', 2), 256, false);
  const round = planRound([a, b, c], 4, 512);
  assert.deepEqual(round.fills, [a, b, c]);
  assert.deepEqual(round.reads, [
    { origin: 'https://a.example', nextAttemptAt: 5, id: 42, limit: 3 },
    { origin: 'https://b.example', nextAttemptAt: 0, id: 0, limit: 4 },
    { origin: 'https://c.example', nextAttemptAt: 0, id: 0, limit: 2 },
  ]);
});

test("a host that passed removed rows over reads its stride, within its budget; the round's rows stay within the allowance, in order", () => {
  const a = hostFill(host('a', 0), 256, false);
  a.stride = 8;
  const b = hostFill(host('b', 0), 3, false);
  const c = hostFill(host('c', 0), 256, false);
  const d = hostFill(host('d', 3), 256, false);
  assert.deepEqual(planned([a, b, c, d], 4, 512), ['a:8', 'b:3', 'c:4', 'd:1']);
  assert.deepEqual(planned([a, b, c, d], 4, 12), ['a:8', 'b:3'], 'c does not fit; d, though it would, waits its turn');
  assert.deepEqual(planned([a, b, c, d], 4, 2), ['a:8'], 'one host at least while anything may be passed over');
  assert.deepEqual(planned([a, b, c, d], 4, 0), [], 'none once the step passed over what it may');
});

test('urgent hosts (dry, or read again from the start) are read in every round whatever was passed over, first', () => {
  const dry = hostFill(host('dry', 0), 256, true);
  const rewound = hostFill(host('rewound', 0, -1, 0), 256, true);
  const low = hostFill(host('low', 1), 256, false);
  assert.deepEqual(planned([dry, rewound, low], 4, 0), ['dry:4', 'rewound:4']);
  assert.deepEqual(
    planned([dry, rewound, low], 4, 8),
    ['dry:4', 'rewound:4'],
    'their rows count against the allowance',
  );
  assert.deepEqual(planned([dry, rewound, low], 4, 11), ['dry:4', 'rewound:4', 'low:3']);
});
