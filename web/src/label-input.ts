/** Labels as a person types them: comma-separated, blanks left out (the server folds and checks them). */
export function labelList(text: string): string[] {
  return text
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}
