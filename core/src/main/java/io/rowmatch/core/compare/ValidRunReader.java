package io.rowmatch.core.compare;

/**
 * Walks the runs of consecutive valid values of a range of a validity bitmap, 64 bits per read: the
 * start of a run is the next set bit, its end the next clear bit, both found with one
 * {@code numberOfTrailingZeros} per word. A bitmap address of 0 (no validity buffer) is one run.
 *
 * <p>Usage: {@code while (reader.next()) { ... reader.start ... reader.length ... }}; {@code start} is
 * relative to the range's first position.
 */
final class ValidRunReader {
  private final long address;
  private final long firstBit;
  private final long limitBytes;
  private final long n;
  /** Next position to look at, relative to {@link #firstBit}. */
  private long pos;

  /** The current run: first position (relative to the range) and number of values. */
  int start;
  int length;

  ValidRunReader(long address, long firstBit, long limitBytes, long n) {
    this.address = address;
    this.firstBit = firstBit;
    this.limitBytes = limitBytes;
    this.n = n;
  }

  /** Moves to the next run; false when there is none. */
  boolean next() {
    if (pos >= n) {
      return false;
    }
    if (address == 0) {
      start = 0;
      length = (int) n;
      pos = n;
      return true;
    }
    // Skip clear bits.
    while (true) {
      long avail = Math.min(64, n - pos);
      long w = BitmapRange.word(address, firstBit + pos, limitBytes) & BitmapRange.mask(avail);
      if (w != 0) {
        pos += Long.numberOfTrailingZeros(w);
        break;
      }
      pos += avail;
      if (pos >= n) {
        return false;
      }
    }
    long runStart = pos;
    // Skip set bits: find the first clear bit (bits past the range count as clear).
    while (pos < n) {
      long avail = Math.min(64, n - pos);
      long clear = ~BitmapRange.word(address, firstBit + pos, limitBytes) & BitmapRange.mask(avail);
      if (clear != 0) {
        pos += Long.numberOfTrailingZeros(clear);
        break;
      }
      pos += avail;
    }
    start = (int) runStart;
    length = (int) (pos - runStart);
    return true;
  }
}
