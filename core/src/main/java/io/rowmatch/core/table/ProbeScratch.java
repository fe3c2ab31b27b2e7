package io.rowmatch.core.table;

/**
 * Per-batch working arrays of a vectorized probe, grown to the largest batch seen. One per thread: a
 * {@link GroupTable} owns one for interning; every {@link JoinProbe} brings its own, so probes of a finished
 * join table can run concurrently. They are proportional to a batch, not to the table, so they live on the
 * heap.
 */
final class ProbeScratch {
  long[] hashes = new long[0];
  /** FixedKeyLookup: each row's home slot entry and the stored key it names. */
  long[] entries = new long[0];
  long[] storedValues = new long[0];
  int[] tags = new int[0];
  int[] candRows = new int[0];
  int[] candGroups = new int[0];
  int[] candPositions = new int[0];
  int[] pendRows = new int[0];
  int[] pendPositions = new int[0];
  boolean[] equal = new boolean[0];
  /** FixedKeyColumns: each key column's values as longs, and the rows with a null key value. */
  long[][] columns = new long[0][];
  boolean[] nullRows = new boolean[0];

  void ensure(int rows) {
    if (hashes.length >= rows) {
      return;
    }
    int n = Math.max(rows, Math.min(Integer.MAX_VALUE - 8, hashes.length * 2));
    hashes = new long[n];
    entries = new long[n];
    storedValues = new long[n];
    tags = new int[n];
    candRows = new int[n];
    candGroups = new int[n];
    candPositions = new int[n];
    pendRows = new int[n];
    pendPositions = new int[n];
    equal = new boolean[n];
    nullRows = new boolean[n];
  }

  /** At least {@code count} column arrays of at least {@code rows} values each. */
  void ensureColumns(int count, int rows) {
    if (columns.length < count) {
      columns = java.util.Arrays.copyOf(columns, count);
    }
    for (int c = 0; c < count; c++) {
      if (columns[c] == null || columns[c].length < rows) {
        columns[c] = new long[Math.max(rows, hashes.length)];
      }
    }
  }
}
