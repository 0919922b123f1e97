/**
 * The query operators of personal capture: `label:NAME` keeps results from seeds carrying that label
 * (folded as labels are: `label:"Dev Tools"` is not needed, `label:dev-tools` or `label:Dev_Tools`
 * do), and `filetype:pdf` (also html, txt/text, md/markdown) keeps one kind of document. Several of one
 * operator OR; the two AND. Pure.
 */
import { toLabel } from '../capture/label.ts';
import type { FileType } from '../../shared/enumerations.ts';

/** Document kinds as pages.file_type holds them. */
export type FileTypeName = FileType;

/** At most this many label: and filetype: values are kept. */
export const MAX_CAPTURE_FILTERS = 8;

const FILE_TYPE_WORDS: Record<string, FileTypeName> = {
  pdf: 'pdf',
  html: 'html',
  htm: 'html',
  txt: 'text',
  text: 'text',
  md: 'markdown',
  markdown: 'markdown',
};

/** One operator found in a query word. */
export type CaptureOperator = { kind: 'label'; label: string } | { kind: 'filetype'; fileType: FileTypeName };

/**
 * The capture operator a query word is (`label:x`, `filetype:pdf`), or undefined when it is none.
 * A word that names the operator but no usable value (`label:!!`, `filetype:exe`) is `null`: dropped.
 */
export function captureOperator(word: string): CaptureOperator | null | undefined {
  const lower = word.toLowerCase();
  if (lower.startsWith('label:')) {
    const label = toLabel(word.slice(6));
    return label === undefined ? null : { kind: 'label', label };
  }
  if (lower.startsWith('filetype:') || lower.startsWith('type:')) {
    const fileType = FILE_TYPE_WORDS[lower.slice(lower.indexOf(':') + 1).replace(/^\./, '')];
    return fileType === undefined ? null : { kind: 'filetype', fileType };
  }
  return undefined;
}
