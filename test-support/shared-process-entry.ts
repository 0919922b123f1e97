/**
 * One test process for the files of SHARED_PROCESS_FILES (see there for why): imports each in turn, so their
 * tests register with this process's test runner as they would in processes of their own, in file order.
 * Given to `node --test` by test-support/test-files.ts beside the files that run one process each.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectPath } from '../shared/project-root.ts';
import { SHARED_PROCESS_FILES } from './shared-process-files.ts';

for (const file of SHARED_PROCESS_FILES) {
  await import(pathToFileURL(path.resolve(projectPath(file))).href);
}
