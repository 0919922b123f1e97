/**
 * The words of a question that carry no topic: question words, pronouns, auxiliaries, articles,
 * prepositions ("how do I make a copy of a list" → make, copy, list). Pure. Question search
 * (question-lists.ts) ranks by the other words; the query's own lists still hold every word, so
 * these are weighed down, never dropped ("how do I sort" still finds sorting, and a query of function
 * words only is searched as typed).
 */

/** English function words, folded (lower case). */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both ' +
    'but by can cannot could did do does doing done down during each either else ever every few for from further ' +
    'get gets getting got had has have having he her here hers herself him himself his how however i if in into is ' +
    'it its itself just let lets like me might mine more most much must my myself need needs no nor not now of off ' +
    'on once one only or other ought our ours ourselves out over own please possible same shall she should so some ' +
    'someone something such than that the their theirs them themselves then there these they this those through ' +
    'to too under until up upon us use using very via want wants was way we were what whats when where whether ' +
    'which while who whom whose why will with within without would yet you your yours yourself yourselves'
  ).split(' '),
);

/** Words a question starts with (folded). */
export const QUESTION_STARTS: ReadonlySet<string> = new Set(
  'how what why where which who when whats can could should would is are do does did will shall may might'.split(' '),
);

/**
 * True when a query's folded words read as a question or a sentence, not as keywords: it starts
 * with a question word, or holds at least three function words ("list all the branches on the
 * remote"). "sort a list by key" and "read a file line by line" stay keyword queries.
 */
export function readsAsQuestion(folded: readonly string[]): boolean {
  if (folded.length >= 2 && QUESTION_STARTS.has(folded[0])) return true;
  return folded.filter(isFunctionWord).length >= 3;
}

/** True when the folded word is a function word. */
export function isFunctionWord(folded: string): boolean {
  return FUNCTION_WORDS.has(folded);
}

/**
 * The topic words of a query's folded words, in order, without repeats: the words that are not
 * function words, or every word when all of them are.
 */
export function contentWords(folded: readonly string[]): string[] {
  const content = folded.filter((w) => !isFunctionWord(w));
  return [...new Set(content.length === 0 ? folded : content)];
}

/**
 * A light stem of a folded word, for comparing a query's words with a page's opening without the
 * index's tokenizer: plural and verb endings and a final "e" removed ("removes", "removing",
 * "removed" and "remove" → "remov"). Not Porter's: both sides go through this same function.
 */
export function lightStem(folded: string): string {
  let w = folded;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(?:ss|x|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) w = w.slice(0, -1);
  if (w.length > 4 && w.endsWith('ied')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  if (w.length > 3 && /([^aeiou])\1$/.test(w) && !/(?:ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}
