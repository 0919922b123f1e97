/**
 * Test helpers for search and page-storage tests: a PageRecord with sensible defaults, a temporary
 * data directory with a migrated database, and a small corpus of pages with known text.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../db/open.ts';
import type { Database } from '../db/open.ts';
import type { PageRecord } from '../db/pages.ts';

/** A page at `url` with the given fields; the rest defaulted (200, text/html, indexed, fetched at 2024-01-01). */
export function makePage(url: string, fields: Partial<PageRecord> = {}): PageRecord {
  const u = new URL(url);
  return {
    url,
    finalUrl: url,
    origin: u.origin,
    host: u.host,
    seedId: null,
    status: 200,
    contentType: 'text/html; charset=utf-8',
    title: '',
    description: '',
    headings: [],
    body: '',
    lang: 'en',
    canonical: null,
    fetchedAt: Date.UTC(2024, 0, 1),
    etag: null,
    lastModified: null,
    contentHash: null,
    noindex: false,
    nofollow: false,
    noarchive: false,
    nosnippet: false,
    indexed: true,
    ...fields,
  };
}

/** A migrated database in a fresh temporary directory; `cleanup` closes it and removes the directory. */
export interface TempDatabase {
  db: Database;
  dir: string;
  cleanup(): void;
}

/** A TempDatabase in a directory named `lantern-<name>-…`, so a left-over folder says which tests made it. */
export function tempDatabase(name = 'search'): TempDatabase {
  const dir = mkdtempSync(path.join(os.tmpdir(), `lantern-${name}-`));
  const db = openDatabase(dir);
  return {
    db,
    dir,
    cleanup() {
      if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const FILLER =
  'This page is part of a small collection kept for testing. It talks about many ordinary things ' +
  'such as weather, travel, food and reading, and it has enough words to look like a real page. ';

/** Pads a topical sentence with neutral filler prose so pages have realistic lengths. */
function prose(topic: string, n = 3): string {
  return `${topic} ${FILLER.repeat(n)} ${topic}`;
}

/**
 * About thirty pages on distinct topics, spread over three hosts (one with a subdomain, one with a
 * port), each with words that only it contains, for ranking, phrase, exclusion, site:, prefix and
 * typo tests. Keys are short names for the tests.
 */
export const CORPUS: Record<string, PageRecord> = {
  rust: makePage('http://docs.example.org/rust/ownership', {
    title: 'Understanding ownership in Rust',
    headings: ['Ownership', 'Borrowing and lifetimes'],
    description: 'How the Rust compiler tracks ownership and borrowing of values.',
    body: prose('The borrow checker enforces ownership rules; each value has a single owner and references borrow it.'),
  }),
  python: makePage('http://docs.example.org/python/subprocess', {
    title: 'Running programs with subprocess',
    headings: ['subprocess.run', 'Capturing output'],
    description: 'Start child processes from Python and collect what they print.',
    body: prose('Call subprocess.run with capture_output=True to collect stdout and stderr of the child process.'),
  }),
  prose: makePage('http://blog.example.org/notes/recording', {
    title: 'Notes on recording sessions',
    description: 'Studio notes.',
    body: prose('We capture output from the mixing desk and capture the output of each microphone separately.'),
  }),
  git: makePage('http://docs.example.org/git/rebase', {
    title: 'Rewriting history',
    headings: ['Interactive mode'],
    description: 'Reorder, squash and edit commits.',
    body: prose(
      'The git-rebase command replays commits on top of another base; use git-rebase --interactive to squash.',
    ),
  }),
  gitProse: makePage('http://blog.example.org/git/tips', {
    title: 'Everyday version control tips',
    description: 'Small habits.',
    body: prose('When you use git, rebase onto main before merging so the history stays linear.'),
  }),
  sourdough: makePage('http://blog.example.org/food/sourdough', {
    title: 'Baking sourdough bread at home',
    headings: ['Feeding the starter', 'Shaping the loaf'],
    description: 'A slow fermentation recipe with a crisp crust.',
    body: prose(
      'Mix flour, water and salt with an active starter, then let the dough ferment overnight in the fridge.',
    ),
  }),
  bagels: makePage('http://blog.example.org/food/bagels', {
    title: 'Boiled bagels',
    description: 'Chewy bagels.',
    body: prose('Bagels are boiled before baking; some bakers add a little sourdough starter for flavour.'),
  }),
  telescope: makePage('http://127.0.0.1:8123/astronomy/telescopes', {
    title: 'Choosing a telescope',
    headings: ['Refractors', 'Reflectors'],
    description: 'Aperture, focal length and mounts explained.',
    body: prose(
      'A refractor telescope uses lenses while a reflector uses mirrors; aperture matters most for faint galaxies.',
    ),
  }),
  galaxies: makePage('http://127.0.0.1:8123/astronomy/galaxies', {
    title: 'Spiral galaxies',
    description: 'Arms, bars and bulges.',
    body: prose('The Andromeda galaxy is a spiral galaxy visible to the naked eye on dark autumn nights.'),
  }),
  quantum: makePage('http://docs.example.org/physics/quantum-entanglement', {
    title: 'Quantum entanglement for beginners',
    headings: ['Bell inequalities'],
    description: 'Correlated particles and spooky action at a distance.',
    body: prose('Entangled particles show correlations that no local hidden variable theory can explain.'),
  }),
  photosynthesis: makePage('http://docs.example.org/biology/photosynthesis', {
    title: 'Photosynthesis explained',
    headings: ['Light reactions', 'Calvin cycle'],
    description: 'How plants turn light into sugar.',
    body: prose('Chlorophyll absorbs light and the Calvin cycle fixes carbon dioxide into sugars.'),
  }),
  volcano: makePage('http://blog.example.org/travel/iceland', {
    title: 'A week in Iceland',
    headings: ['Volcanoes', 'Hot springs'],
    description: 'Glaciers, geysers and lava fields.',
    body: prose('We hiked across a lava field to see an erupting volcano near Grindavik and bathed in hot springs.'),
  }),
  chess: makePage('http://blog.example.org/games/chess-openings', {
    title: 'Chess openings every beginner should know',
    headings: ['Sicilian defence', "Queen's gambit"],
    description: 'Principles of the opening.',
    body: prose('The Sicilian defence answers e4 with c5 and leads to sharp, unbalanced positions.'),
  }),
  knitting: makePage('http://blog.example.org/crafts/knitting', {
    title: 'Knitting a wool scarf',
    description: 'Needles, yarn and a simple rib stitch.',
    body: prose('Cast on forty stitches with merino yarn and work a two by two rib until the scarf is long enough.'),
  }),
  cafe: makePage('http://blog.example.org/travel/paris-cafes', {
    title: 'Café culture in Paris',
    description: 'Where to sit and watch the city.',
    body: prose('A café crème on a terrace near the Seine is the classic Parisian morning ritual.'),
  }),
  kubernetes: makePage('http://docs.example.org/ops/kubernetes-pods', {
    title: 'Kubernetes pods and deployments',
    headings: ['Pods', 'Deployments', 'Services'],
    description: 'Container orchestration basics.',
    body: prose('A deployment manages replica sets which in turn manage pods scheduled onto nodes.'),
  }),
  postgres: makePage('http://docs.example.org/db/postgres-indexes', {
    title: 'PostgreSQL index types',
    headings: ['B-tree', 'GIN', 'BRIN'],
    description: 'Choosing the right index.',
    body: prose('A GIN index speeds up full text search and jsonb containment queries in PostgreSQL.'),
  }),
  bicycle: makePage('http://blog.example.org/diy/bicycle-repair', {
    title: 'Fixing a flat bicycle tyre',
    description: 'Patch kit and tyre levers.',
    body: prose('Remove the wheel, lever off the tyre, find the puncture in the inner tube and apply a patch.'),
  }),
  jazz: makePage('http://blog.example.org/music/jazz-standards', {
    title: 'Learning jazz standards',
    headings: ['Autumn Leaves', 'Blue Bossa'],
    description: 'Chord changes and improvisation.',
    body: prose('Autumn Leaves moves through a ii V I progression in both the relative major and minor keys.'),
  }),
  orchids: makePage('http://blog.example.org/garden/orchids', {
    title: 'Caring for orchids',
    description: 'Light, water and repotting.',
    body: prose('Phalaenopsis orchids like bright indirect light and should be watered when the bark is dry.'),
  }),
  marathon: makePage('http://blog.example.org/sport/marathon-training', {
    title: 'Marathon training plan',
    headings: ['Long runs', 'Tapering'],
    description: 'Sixteen weeks to race day.',
    body: prose('Build weekly mileage slowly and include one long run every weekend before tapering.'),
  }),
  espresso: makePage('http://blog.example.org/food/espresso', {
    title: 'Dialing in espresso',
    description: 'Grind size, dose and yield.',
    body: prose('Adjust the grinder until a double shot of espresso flows in about twenty eight seconds.'),
  }),
  beekeeping: makePage('http://blog.example.org/garden/beekeeping', {
    title: 'Beekeeping for beginners',
    headings: ['The hive', 'Harvesting honey'],
    description: 'Colonies, queens and frames.',
    body: prose('Inspect the hive every week in spring to check the queen is laying and the colony has space.'),
  }),
  origami: makePage('http://blog.example.org/crafts/origami-crane', {
    title: 'Folding an origami crane',
    description: 'Paper folding step by step.',
    body: prose('Start with a square sheet, fold a bird base, then narrow the wings and shape the crane neck.'),
  }),
  tides: makePage('http://docs.example.org/earth/tides', {
    title: 'Why the sea has tides',
    description: 'The moon, the sun and the oceans.',
    body: prose('Tidal forces from the moon raise two bulges of ocean water on opposite sides of the earth.'),
  }),
  typescript: makePage('http://docs.example.org/ts/generics', {
    title: 'TypeScript generics in practice',
    headings: ['Constraints', 'Conditional types'],
    description: 'Reusable typed functions.',
    body: prose('Generic constraints let a function accept any type that has the properties it needs.'),
  }),
  sqlite: makePage('http://docs.example.org/db/sqlite-wal', {
    title: 'SQLite write-ahead logging',
    headings: ['Checkpoints'],
    description: 'Readers and writers at the same time.',
    body: prose('In WAL mode readers do not block the writer and a checkpoint moves pages back into the database.'),
  }),
  mushrooms: makePage('http://blog.example.org/nature/mushrooms', {
    title: 'Foraging wild mushrooms safely',
    description: 'Chanterelles, porcini and lookalikes.',
    body: prose('Never eat a mushroom you cannot identify; the death cap resembles several edible species.'),
  }),
};
