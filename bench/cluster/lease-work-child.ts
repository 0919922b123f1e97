/**
 * The entry of a lease-work bench node's child process (lease-work-bench.ts forks it): its options are the one
 * argument, as JSON (lease-work-node.ts LeaseNodeOptions).
 */
import { type LeaseNodeOptions, runLeaseNode } from './lease-work-node.ts';

await runLeaseNode(JSON.parse(process.argv[2] ?? '{}') as LeaseNodeOptions);
