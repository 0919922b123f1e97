/**
 * Labels as a person or a script sends them (POST /api/seeds, PUT /api/seeds/:id/labels, the import's
 * labels): each must fold to a label (label.ts), or the request is refused with `invalid-label`.
 */
import { MAX_LABELS_PER_SEED } from '../../db/seed-labels.ts';
import { HttpError } from '../plugins/error-handler.ts';
import { toLabel } from './label.ts';

/** The folded, distinct labels of `names`; throws HttpError 400 invalid-label for a name that holds no letter or digit, or too many. */
export function checkLabels(names: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of names) {
    const label = toLabel(name);
    if (label === undefined) {
      throw new HttpError(
        400,
        'invalid-label',
        `labels: ${JSON.stringify(name.slice(0, 100))} has no letter or digit; a label is a word such as "rust" or "dev-tools"`,
      );
    }
    if (!out.includes(label)) out.push(label);
  }
  if (out.length > MAX_LABELS_PER_SEED) {
    throw new HttpError(
      400,
      'invalid-label',
      `labels: ${out.length} labels given; a seed carries at most ${MAX_LABELS_PER_SEED}`,
    );
  }
  return out;
}
