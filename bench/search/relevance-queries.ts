/**
 * The relevance sets of `npm run bench:search` (relevance.ts): questions a person asks of the
 * Python 3.11 and Git 2.39 documentation, each with the page (or pages) they mean, by path. Written
 * before any measurement, as a person would type them (a name, a task in words), not from the pages'
 * titles; the link signals' weights were set from the design and not tuned on either set. Two sets of
 * equal standing, so a change that helps one and hurts the other shows.
 */

/** A query and the pages it means (paths as served, without the leading slash). */
export interface Judged {
  query: string;
  meant: string[];
}

export const QUERY_SETS: Record<string, Judged[]> = {
  A: [
    { query: 'str.split', meant: ['library/stdtypes.html'] },
    { query: 'list comprehensions', meant: ['tutorial/datastructures.html'] },
    { query: 'json dumps', meant: ['library/json.html'] },
    { query: 'regular expression syntax', meant: ['library/re.html'] },
    { query: 'asyncio gather', meant: ['library/asyncio-task.html'] },
    { query: 'virtual environment', meant: ['tutorial/venv.html', 'library/venv.html'] },
    { query: 'sort a list by key', meant: ['howto/sorting.html'] },
    { query: 'argparse add_argument', meant: ['library/argparse.html'] },
    { query: 'logging basicConfig', meant: ['library/logging.html', 'howto/logging.html'] },
    { query: 'defaultdict', meant: ['library/collections.html'] },
    { query: 'global interpreter lock', meant: ['glossary.html'] },
    { query: 'sqlite3 connect', meant: ['library/sqlite3.html'] },
    { query: 'enumerate', meant: ['library/functions.html'] },
    { query: 'shutil copy file', meant: ['library/shutil.html'] },
    { query: 'rebase interactive', meant: ['git-rebase.html'] },
    { query: 'stash changes', meant: ['git-stash.html'] },
    { query: 'delete a branch', meant: ['git-branch.html'] },
    { query: 'clone a repository', meant: ['git-clone.html'] },
    { query: 'bisect', meant: ['git-bisect.html'] },
    { query: 'remote add', meant: ['git-remote.html'] },
    { query: 'submodule update', meant: ['git-submodule.html'] },
    { query: 'reflog', meant: ['git-reflog.html'] },
  ],
  B: [
    { query: 'os.path.join', meant: ['library/os.path.html'] },
    { query: 'read a file line by line', meant: ['tutorial/inputoutput.html'] },
    { query: 'subprocess run capture output', meant: ['library/subprocess.html'] },
    { query: 'dataclass', meant: ['library/dataclasses.html'] },
    { query: 'format string syntax', meant: ['library/string.html'] },
    { query: 'try except exceptions', meant: ['tutorial/errors.html'] },
    { query: 'datetime strftime', meant: ['library/datetime.html'] },
    { query: 'unittest mock patch', meant: ['library/unittest.mock.html'] },
    { query: 'pathlib glob', meant: ['library/pathlib.html'] },
    { query: 'itertools groupby', meant: ['library/itertools.html'] },
    { query: 'classes inheritance', meant: ['tutorial/classes.html'] },
    { query: 'zip function', meant: ['library/functions.html'] },
    { query: 'random choice', meant: ['library/random.html'] },
    {
      query: 'context manager with statement',
      meant: ['reference/compound_stmts.html', 'library/contextlib.html', 'reference/datamodel.html'],
    },
    { query: 'undo last commit', meant: ['git-reset.html', 'git-revert.html'] },
    { query: 'cherry pick', meant: ['git-cherry-pick.html'] },
    { query: 'show commit history', meant: ['git-log.html'] },
    { query: 'resolve merge conflicts', meant: ['git-merge.html', 'git-mergetool.html'] },
    { query: 'gitignore', meant: ['gitignore.html'] },
    { query: 'tag a release', meant: ['git-tag.html'] },
    { query: 'blame', meant: ['git-blame.html'] },
    { query: 'push force with lease', meant: ['git-push.html'] },
  ],
};
