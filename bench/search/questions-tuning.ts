/**
 * The tuning question set of `npm run bench:search` (relevance.ts): 30 questions over the Python
 * 3.11, Git 2.39 and Debian documentation, written the same way as the held-out set
 * (questions-held-out.ts, written first) and after it. The ranking changes for questions were tried
 * and weighed on this set (and the two keyword sets) only.
 */
import type { Judged } from './relevance-queries.ts';

export const TUNING_QUESTIONS: Judged[] = [
  // Python
  { query: 'how do I sort a dictionary by its values', meant: ['howto/sorting.html'] },
  { query: 'how to check if a file exists', meant: ['library/os.path.html', 'library/pathlib.html'] },
  { query: 'how do I convert a string to a number', meant: ['library/functions.html', 'faq/programming.html'] },
  { query: 'run a shell command and get its output', meant: ['library/subprocess.html'] },
  { query: 'how to parse command line arguments', meant: ['library/argparse.html', 'howto/argparse.html'] },
  { query: 'how do I write messages to a log file', meant: ['howto/logging.html', 'library/logging.html'] },
  { query: 'how do I loop over the keys and values of a dictionary', meant: ['tutorial/datastructures.html'] },
  {
    query: 'what does the yield keyword do',
    meant: ['reference/expressions.html', 'reference/simple_stmts.html', 'glossary.html', 'tutorial/classes.html'],
  },
  { query: 'how to delete a folder that is not empty', meant: ['library/shutil.html'] },
  {
    query: 'how can I find out how much memory my program uses',
    meant: ['library/tracemalloc.html', 'library/sys.html'],
  },
  // Git
  { query: 'undo git add before commit', meant: ['git-restore.html', 'git-reset.html'] },
  { query: 'how to change the message of the last commit', meant: ['git-commit.html'] },
  { query: 'list all the branches on the remote', meant: ['git-branch.html', 'git-ls-remote.html'] },
  { query: 'go back to an older version of a file', meant: ['git-restore.html', 'git-checkout.html'] },
  { query: 'copy a commit from another branch', meant: ['git-cherry-pick.html'] },
  { query: 'how to stop tracking files I do not want to commit', meant: ['gitignore.html', 'git-rm.html'] },
  { query: 'get rid of untracked files', meant: ['git-clean.html'] },
  { query: 'how can I see what I changed before committing', meant: ['git-diff.html', 'git-status.html'] },
  { query: 'apply a patch that someone sent me by email', meant: ['git-am.html', 'git-apply.html'] },
  { query: 'how do I set my name and email', meant: ['git-config.html'] },
  // Debian
  {
    query: 'how do I install a program',
    meant: ['reference/ch02.en.html', 'faq/pkgtools.en.html', 'faq/pkg-basics.en.html'],
  },
  {
    query: 'how to keep my system up to date with security fixes',
    meant: ['faq/uptodate.en.html', 'reference/ch02.en.html'],
  },
  {
    query: 'what is the difference between stable testing and unstable',
    meant: ['faq/choosing.en.html', 'faq/ftparchives.en.html'],
  },
  { query: 'how to log in to another machine remotely', meant: ['reference/ch06.en.html'] },
  { query: 'how do I change who can read a file', meant: ['reference/ch01.en.html'] },
  { query: 'how to set up a printer', meant: ['reference/ch06.en.html'] },
  { query: 'how do I mount a usb stick', meant: ['reference/ch09.en.html', 'reference/ch10.en.html'] },
  { query: 'how to change the language of the system', meant: ['reference/ch08.en.html'] },
  { query: 'how do I add a new user account', meant: ['reference/ch01.en.html', 'reference/ch04.en.html'] },
  { query: 'where do I report a bug in a package', meant: ['faq/support.en.html'] },
];
