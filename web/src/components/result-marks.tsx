import type { SearchResult } from '../api.ts';

/** The mark of each kind of document; a web page (html) has none. */
const KIND: Record<SearchResult['fileType'], string | undefined> = {
  html: undefined,
  pdf: 'PDF',
  text: 'Text',
  markdown: 'Markdown',
};

/** What a result is beyond a web page: its kind ("PDF"), the PDF page of its snippet, and the labels it came from. */
export function ResultMarks({ result }: { result: SearchResult }) {
  const kind = KIND[result.fileType];
  const labels = result.labels;
  if (kind === undefined && labels.length === 0) return null;
  return (
    <p className="result-marks">
      {kind !== undefined ? <span className="kind-mark">{kind}</span> : null}
      {result.page !== null ? <span className="page-mark">page {result.page}</span> : null}
      {labels.map((label) => (
        <span key={label} className="label-chip">
          label: {label}
        </span>
      ))}
    </p>
  );
}
