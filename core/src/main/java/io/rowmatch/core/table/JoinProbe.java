package io.rowmatch.core.table;

import java.util.List;

import org.apache.arrow.vector.ValueVector;

import io.rowmatch.core.compare.ColumnLayout;
import io.rowmatch.core.compare.RawMemory;

/**
 * Probes one batch at a time against a finished {@link JoinTable}. {@link #lookup} finds each probe row's key
 * among the build keys (vectorized, as {@link GroupTable} interning does) and marks the matched build keys;
 * then {@link #hasMatch} answers semi/anti/outer questions per probe row, and {@link #nextPairs} streams the
 * (probe row, build row) pairs in probe-row order, at most as many per call as the output arrays hold, so a
 * probe row with millions of matches never needs memory beyond the caller's chunk.
 *
 * <p>Not thread-safe; make one per thread. Holds no Arrow memory (its arrays are batch-sized, on the heap).
 */
public final class JoinProbe {
  private final JoinTable table;
  private final ProbeScratch scratch = new ProbeScratch();
  private int[] groupOf = new int[0];
  /** Per probe row: its matches are build rows at group-layout indices [matchStart, matchEnd). */
  private int[] matchStart = new int[0];
  private int[] matchEnd = new int[0];
  private int rowCount;
  /** Pair cursor: the probe row being emitted and the next index into its group's build rows. */
  private int cursorRow;
  private int cursorIndex;
  private int cursorEnd;
  /** Unique build keys: how many probe rows of this batch matched (picks the pair loop). */
  private int uniqueMatches;

  JoinProbe(JoinTable table) {
    this.table = table;
  }

  /**
   * Looks up rows [0, rowCount) of a probe batch; replaces the previous batch's results.
   *
   * @throws IllegalArgumentException naming the column when the batch doesn't fit the key schema
   */
  public void lookup(List<? extends ValueVector> probeKeys, int rowCount) {
    table.checkFinished();
    ensureRows(rowCount);
    findGroups(probeKeys, rowCount, groupOf);
    takeGroups(rowCount);
  }

  /**
   * Writes to {@code groups} the build group each of rows [0, rowCount) of {@code keys} equals (-1: none), as
   * {@link #lookup} finds them, but takes nothing as the probe batch: no build key is marked matched and the
   * current batch's results stay. A caller that knows which probe rows share a value (dictionary ids) finds one
   * row per value here and hands the whole batch's groups to {@link #lookupGroups}.
   *
   * @throws IllegalArgumentException naming the column when the keys don't fit the key schema
   */
  public void find(List<? extends ValueVector> keys, int rowCount, int[] groups) {
    table.checkFinished();
    if (groups.length < rowCount) {
      throw new IllegalArgumentException("group array of " + groups.length + " for " + rowCount + " rows");
    }
    findGroups(keys, rowCount, groups);
  }

  /**
   * As {@link #lookup}, for a probe batch whose rows the caller numbered by distinct value (dictionary ids) and
   * whose values' groups it found with {@link #find}: row i's group is {@code groupOfValue[valueOfRow[i]]} (-1: no
   * match). Replaces the previous batch's results.
   *
   * @throws IllegalArgumentException when a row's group is not one of the table's (no row is taken then)
   */
  public void lookupGroups(int[] groupOfValue, int[] valueOfRow, int rowCount) {
    table.checkFinished();
    if (valueOfRow.length < rowCount) {
      throw new IllegalArgumentException("value array of " + valueOfRow.length + " for " + rowCount + " rows");
    }
    ensureRows(rowCount);
    int groupCount = table.distinctKeyCount();
    int bad = 0;
    for (int i = 0; i < rowCount; i++) {
      int g = groupOfValue[valueOfRow[i]];
      groupOf[i] = g;
      bad |= (g + 1) | (groupCount - 1 - g); // negative when g < -1 or g >= groupCount
    }
    if (bad < 0) {
      this.rowCount = 0;
      for (int i = 0; i < rowCount; i++) {
        if (groupOf[i] < -1 || groupOf[i] >= groupCount) {
          throw new IllegalArgumentException("probe row " + i + "'s group " + groupOf[i] + " is outside [-1, "
              + groupCount + ")");
        }
      }
    }
    takeGroups(rowCount);
  }

  private void ensureRows(int rowCount) {
    if (groupOf.length < rowCount) {
      int n = Math.max(rowCount, Math.min(Integer.MAX_VALUE - 8, groupOf.length * 2));
      groupOf = new int[n];
      matchStart = new int[n];
      matchEnd = new int[n];
    }
  }

  private void findGroups(List<? extends ValueVector> keys, int rowCount, int[] groups) {
    DenseKeyIndex dense = table.dense();
    if (dense != null) {
      table.keys().checkKeys(keys, rowCount);
      dense.lookup(ColumnLayout.of(keys.get(0), "key column 0 (probe)"), rowCount, groups);
    } else {
      table.keys().lookup(keys, rowCount, groups, scratch);
    }
  }

  /** Takes groupOf[0, rowCount) as the batch's results: marks the matched build keys, finds their row ranges. */
  private void takeGroups(int rowCount) {
    this.rowCount = rowCount;
    cursorRow = -1;
    cursorIndex = 0;
    cursorEnd = 0;
    if (table.uniqueKeys()) {
      // A probe row's match is build row groupOf[i] itself: no ranges to look up.
      int matched = 0;
      for (int i = 0; i < rowCount; i++) {
        int g = groupOf[i];
        if (g >= 0) {
          table.markMatched(g);
          matched++;
        }
      }
      uniqueMatches = matched;
      return;
    }
    // One pass of independent random reads (matched flags, group ranges), which the CPU overlaps well.
    for (int i = 0; i < rowCount; i++) {
      int g = groupOf[i];
      if (g >= 0) {
        table.markMatched(g);
        matchStart[i] = table.groupStart(g);
        matchEnd[i] = table.groupStart(g + 1);
      } else {
        matchStart[i] = 0;
        matchEnd[i] = 0;
      }
    }
  }

  /** A comparison of a build row's band value with a probe row's: {@code build OP probe}. */
  public enum Band {
    LESS,
    LESS_OR_EQUAL,
    GREATER,
    GREATER_OR_EQUAL
  }

  /**
   * Keeps each probe row's matches of the current batch to the build rows whose band value (the column the table was
   * ordered by, {@link JoinTable#orderRowsWithinKeys}) compares with the row's value in {@code column} as
   * {@code op} says; a null on either side compares as nothing. The pairs left out are exactly those the comparison
   * does not hold for; a caller still testing its whole condition on the pairs gets the same answer, sooner. Does
   * nothing when every build key is unique (at most one pair per probe row).
   *
   * @throws IllegalArgumentException naming the column when it is not 4-byte integral or holds too few values
   * @throws IllegalStateException when the table was not ordered by a band column
   */
  public void narrowToBand(ValueVector column, Band op) {
    table.checkFinished();
    if (table.uniqueKeys()) {
      return;
    }
    if (!table.bandOrdered()) {
      throw new IllegalStateException("JoinTable '" + table.name() + "' was not ordered by a band column");
    }
    ColumnLayout values = JoinTable.bandLayout(column, "(probe)", rowCount, "probe rows");
    for (int i = 0; i < rowCount; i++) {
      int g = groupOf[i];
      if (g < 0) {
        continue;
      }
      if (values.allNull || !values.isValid(i)) {
        matchEnd[i] = matchStart[i];
        continue;
      }
      int v = RawMemory.getInt(values.data + 4L * i);
      int lo = matchStart[i];
      int hi = table.bandEnd(g);
      switch (op) {
        case LESS -> matchEnd[i] = firstAbove(lo, hi, v, false);
        case LESS_OR_EQUAL -> matchEnd[i] = firstAbove(lo, hi, v, true);
        case GREATER -> {
          matchStart[i] = firstAbove(lo, hi, v, true);
          matchEnd[i] = hi;
        }
        case GREATER_OR_EQUAL -> {
          matchStart[i] = firstAbove(lo, hi, v, false);
          matchEnd[i] = hi;
        }
      }
    }
  }

  /** The first index of [lo, hi), whose band values ascend, holding a value > v (strictly) or >= v; else hi. */
  private int firstAbove(int lo, int hi, int v, boolean strictly) {
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      int b = table.bandValue(mid);
      if (strictly ? b <= v : b < v) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  public int rowCount() {
    return rowCount;
  }

  /** True when probe row {@code row} equals at least one build row. */
  public boolean hasMatch(int row) {
    checkRow(row);
    return groupOf[row] >= 0;
  }

  /** How many build rows probe row {@code row} matches. */
  public int matchCount(int row) {
    checkRow(row);
    if (table.uniqueKeys()) {
      return groupOf[row] >= 0 ? 1 : 0;
    }
    return matchEnd[row] - matchStart[row];
  }

  /**
   * Writes the next matching pairs, in probe-row order and, per probe row, increasing build row order (band value
   * order in a table ordered by a band column, {@link JoinTable#orderRowsWithinKeys}):
   * {@code probeRows[k]} and {@code buildRows[k]} for {@code k <} the returned count, which is at most the
   * shorter array's length. Returns 0 when every pair of this batch has been handed out.
   */
  public int nextPairs(int[] probeRows, int[] buildRows) {
    return nextPairs(probeRows, buildRows, Math.min(probeRows.length, buildRows.length));
  }

  /** As {@link #nextPairs(int[], int[])}, writing at most {@code limit} pairs. */
  public int nextPairs(int[] probeRows, int[] buildRows, int limit) {
    if (limit <= 0 || limit > probeRows.length || limit > buildRows.length) {
      throw new IllegalArgumentException("pair limit " + limit + " outside [1, " + Math.min(probeRows.length,
          buildRows.length) + "] (the output arrays' length)");
    }
    if (table.uniqueKeys()) {
      return nextUniquePairs(probeRows, buildRows, limit);
    }
    int n = 0;
    while (n < limit) {
      if (cursorIndex == cursorEnd) {
        // Advance to the next probe row with matches.
        int r = cursorRow + 1;
        while (r < rowCount && groupOf[r] < 0) {
          r++;
        }
        cursorRow = r;
        if (r >= rowCount) {
          cursorIndex = 0;
          cursorEnd = 0;
          cursorRow = rowCount - 1;
          break;
        }
        cursorIndex = matchStart[r];
        cursorEnd = matchEnd[r];
      }
      int take = Math.min(limit - n, cursorEnd - cursorIndex);
      int row = cursorRow;
      for (int k = 0; k < take; k++) {
        probeRows[n + k] = row;
        buildRows[n + k] = table.rowByGroupIndex(cursorIndex + k);
      }
      n += take;
      cursorIndex += take;
    }
    return n;
  }

  /**
   * Unique build keys: one pair per matched probe row, its build row the group id. When under a quarter of the
   * rows matched (a selective join), a skip over the misses, whose branch is then predictable; otherwise
   * branch-free: every row's pair is written at n (n < limit, inside both arrays), n advancing only for a match.
   */
  private int nextUniquePairs(int[] probeRows, int[] buildRows, int limit) {
    final int[] groups = groupOf;
    int n = 0;
    int r = cursorRow + 1;
    if (uniqueMatches * 4L < rowCount) {
      for (; r < rowCount && n < limit; r++) {
        int g = groups[r];
        if (g >= 0) {
          probeRows[n] = r;
          buildRows[n] = g;
          n++;
        }
      }
    } else {
      for (; r < rowCount && n < limit; r++) {
        int g = groups[r];
        probeRows[n] = r;
        buildRows[n] = g;
        n += (g >>> 31) ^ 1;
      }
    }
    cursorRow = r - 1;
    return n;
  }

  private void checkRow(int row) {
    if (row < 0 || row >= rowCount) {
      throw new IndexOutOfBoundsException("probe row " + row + " outside [0, " + rowCount + ")");
    }
  }
}
