/**
 * A string built from many pieces in bounded arrays. One array of tens of thousands of pieces
 * outgrows V8's regular heap pages (128 KB, about 16 Ki pointers) into its large-object space,
 * where every growth is a fresh allocation: about ten times the cost per piece (a plain push loop
 * costs 5 ns per element at 4,000 elements, 59 at 32,000, 77 at 256,000). That made limitNesting's
 * cost per character jump about 6x between 16 KB and 128 KB pages. Here every PIECES_PER_CHUNK
 * pieces are joined into one chunk, so no array grows past it. Pure.
 */

/** Pieces held in one array before they are joined into a chunk. */
export const PIECES_PER_CHUNK = 4096;

/** Collects pieces and joins them once, never holding more than PIECES_PER_CHUNK in one array. */
export class ChunkedString {
  private readonly chunks: string[] = [];
  private pieces: string[] = [];
  /** Pieces added so far. */
  count = 0;
  /** The most entries any one array held so far (what a test bounds). */
  longestArray = 0;

  /** Appends the pieces, in order. */
  push(...pieces: string[]): void {
    for (const piece of pieces) this.pieces.push(piece);
    this.count += pieces.length;
    this.longestArray = Math.max(this.longestArray, this.pieces.length, this.chunks.length);
    if (this.pieces.length >= PIECES_PER_CHUNK) {
      this.chunks.push(this.pieces.join(''));
      this.pieces = [];
    }
  }

  /** The whole string: every piece pushed, in order. */
  join(): string {
    if (this.chunks.length === 0) return this.pieces.join('');
    this.chunks.push(this.pieces.join(''));
    this.pieces = [];
    return this.chunks.join('');
  }
}
