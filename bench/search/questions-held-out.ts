/**
 * The held-out question set of `npm run bench:search` (relevance.ts): 30 questions over the Python
 * 3.11, Git 2.39 and Debian (Debian Reference, Debian FAQ) documentation, as people ask them in their
 * own words (the docs' FAQ and HOWTO questions rephrased, forum-style titles), each with the page(s)
 * that answer it. Written before any measurement and before the tuning set (questions-tuning.ts); no
 * ranking change is tuned on it: only its totals are read, never its per-question results.
 */
import type { Judged } from './relevance-queries.ts';

export const HELD_OUT_QUESTIONS: Judged[] = [
  // Python
  {
    query: 'how do I make a copy of a list without changing the original',
    meant: ['library/copy.html', 'faq/programming.html'],
  },
  { query: 'how can I stop a running thread', meant: ['library/threading.html'] },
  { query: 'how to read a csv file', meant: ['library/csv.html'] },
  { query: 'how do I get the current date and time', meant: ['library/datetime.html', 'library/time.html'] },
  { query: 'how can I send an email from a script', meant: ['library/smtplib.html', 'library/email.examples.html'] },
  { query: 'what is the best way to measure how long my code takes to run', meant: ['library/timeit.html'] },
  { query: 'how do I remove duplicates from a list', meant: ['faq/programming.html'] },
  { query: 'how to generate a random password', meant: ['library/secrets.html'] },
  { query: 'how can I download a web page in python', meant: ['library/urllib.request.html', 'howto/urllib2.html'] },
  {
    query: 'why does my default argument keep its value between calls',
    meant: ['faq/programming.html', 'tutorial/controlflow.html', 'reference/compound_stmts.html'],
  },
  // Git
  { query: 'show the history of one file', meant: ['git-log.html'] },
  { query: 'how do I throw away my local changes', meant: ['git-restore.html', 'git-checkout.html', 'git-reset.html'] },
  { query: 'how to rename a branch', meant: ['git-branch.html'] },
  { query: 'who changed this line of code', meant: ['git-blame.html'] },
  { query: 'how to combine several commits into one', meant: ['git-rebase.html', 'git-merge.html'] },
  { query: 'see what changed between two commits', meant: ['git-diff.html'] },
  { query: 'how do I get the latest changes from the server', meant: ['git-pull.html', 'git-fetch.html'] },
  { query: 'find which commit introduced a bug', meant: ['git-bisect.html'] },
  { query: 'save my work in progress without committing it', meant: ['git-stash.html'] },
  { query: 'work on two branches at the same time in different folders', meant: ['git-worktree.html'] },
  // Debian
  { query: 'how do I upgrade to the next debian release', meant: ['faq/uptodate.en.html', 'reference/ch02.en.html'] },
  {
    query: 'how to find out which package a file belongs to',
    meant: ['reference/ch02.en.html', 'faq/pkgtools.en.html'],
  },
  { query: 'how do I set a static ip address', meant: ['reference/ch05.en.html'] },
  { query: 'how do I change the keyboard layout', meant: ['reference/ch08.en.html'] },
  { query: 'how to run a command automatically at boot', meant: ['reference/ch03.en.html', 'reference/ch09.en.html'] },
  { query: 'how can I give a user administrator rights', meant: ['reference/ch04.en.html', 'reference/ch01.en.html'] },
  { query: 'what is a good way to back up my files', meant: ['reference/ch10.en.html'] },
  { query: 'where can I get help with a problem', meant: ['faq/support.en.html'] },
  { query: 'how do I convert a text file to another character encoding', meant: ['reference/ch11.en.html'] },
  { query: 'how to compile my own linux kernel', meant: ['faq/kernel.en.html', 'reference/ch09.en.html'] },
];
