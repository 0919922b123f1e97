/**
 * One process of the parse-only measurement (forked by parse-limit.ts): it builds the benchmark
 * pages itself (byte-identical to what the sites served), takes its share, warms up, and on `go`
 * parses its share round and round with processPage until the common deadline. No network, no storage.
 */
import { benchPages, pagesDigest, parseLikeWorker, type BenchPage } from './bench-pages.ts';
import type { ParentToChild, ChildToParent } from './parse-limit.ts';

let share: BenchPage[] = [];

function send(msg: ChildToParent): void {
  if (process.connected) process.send!(msg);
}

const now = () => performance.timeOrigin + performance.now();

process.on('message', (msg: ParentToChild) => {
  if (msg.type === 'prepare') {
    const all = benchPages(msg.origins, msg.site);
    share = all.filter((_, i) => i % msg.shards === msg.shard);
    const t0 = performance.now();
    for (const p of share.slice(0, 100)) parseLikeWorker(p); // JIT warm-up
    send({ type: 'prepared', digest: pagesDigest(all), sharePages: share.length, warmupMs: performance.now() - t0 });
  } else if (msg.type === 'go') {
    const begin = (): void => {
      const started = now();
      const cpu0 = process.cpuUsage();
      const deadline = msg.startAt + msg.durationMs;
      let pages = 0;
      let bytes = 0;
      let i = 0;
      while (now() < deadline) {
        const p = share[i];
        if (parseLikeWorker(p) === null) throw new Error(`parse-child: ${p.url} was not parsed as HTML`);
        pages++;
        bytes += p.body.length;
        i = (i + 1) % share.length;
      }
      const cpu = process.cpuUsage(cpu0);
      send({ type: 'result', pages, bytes, elapsedMs: now() - started, cpuMs: (cpu.user + cpu.system) / 1000 });
    };
    setTimeout(begin, Math.max(0, msg.startAt - now()));
  }
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
