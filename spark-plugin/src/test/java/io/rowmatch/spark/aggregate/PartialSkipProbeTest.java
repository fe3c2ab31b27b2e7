package io.rowmatch.spark.aggregate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.function.LongUnaryOperator;

import org.junit.jupiter.api.Test;

class PartialSkipProbeTest {
  private static final int BATCH = 8192;
  private static final long TASK_ROWS = 1_250_000; // one of 8 tasks over the 10M-row benchmark table

  /** Feeds batches until the probe says skip; returns the rows seen by then, or -1 if it never does. */
  private static long skipsAt(PartialSkipProbe probe, long totalRows, int batch, LongUnaryOperator groupsAfter) {
    long rows = 0;
    while (rows < totalRows) {
      int n = (int) Math.min(batch, totalRows - rows);
      rows += n;
      if (probe.skipAfter(n, groupsAfter.applyAsLong(rows))) {
        return rows;
      }
    }
    return -1;
  }

  private static long firstBatchEndAtOrAfter(long rows, int batch) {
    return (rows + batch - 1) / batch * batch;
  }

  @Test
  void allDistinctKeysSkipAtTheFirstDecision() {
    long minRows = 262_144;
    long at = skipsAt(new PartialSkipProbe(minRows, 0.8), TASK_ROWS, BATCH, n -> n);
    // warm-up window ends at the first batch end >= minRows/2, the judged window one half-window later
    long warm = firstBatchEndAtOrAfter(minRows / 2, BATCH);
    assertEquals(firstBatchEndAtOrAfter(warm + minRows / 2, BATCH), at);
  }

  @Test
  void groupByWhoseGroupsSaturateEarlyNeverSkips() {
    // The benchmark's group-by: 99,300 groups in key order, all seen within the first 99,300 rows.
    assertEquals(-1, skipsAt(new PartialSkipProbe(262_144, 0.8), TASK_ROWS, BATCH, n -> Math.min(n, 99_300)));
    // Same with a small minRows: the window after the groups saturate makes no new groups.
    assertEquals(-1, skipsAt(new PartialSkipProbe(2 * 99_300 + 2 * BATCH, 0.8), TASK_ROWS, BATCH,
        n -> Math.min(n, 99_300)));
  }

  @Test
  void uniformRandomKeysSkipOnlyWhenFewRepeatsRemain() {
    // Expected distinct keys after n uniform draws from g keys: g (1 - e^(-n/g)).
    LongUnaryOperator fewGroups = n -> Math.round(99_000 * (1 - Math.exp(-n / 99_000.0)));
    assertEquals(-1, skipsAt(new PartialSkipProbe(262_144, 0.8), TASK_ROWS, BATCH, fewGroups));
    LongUnaryOperator manyGroups = n -> Math.round(50_000_000 * (1 - Math.exp(-n / 50_000_000.0)));
    assertEquals(262_144, skipsAt(new PartialSkipProbe(262_144, 0.8), TASK_ROWS, BATCH, manyGroups));
  }

  @Test
  void inputThatStopsReducingLaterSkipsThen() {
    // 500K rows over 1,000 keys, then every row a new key: skip within one window after the change.
    LongUnaryOperator groups = n -> n <= 500_000 ? Math.min(n, 1_000) : 1_000 + (n - 500_000);
    long at = skipsAt(new PartialSkipProbe(262_144, 0.8), TASK_ROWS, BATCH, groups);
    assertEquals(true, at > 500_000 && at <= 500_000 + 2 * 131_072 + BATCH, "skipped at " + at);
  }

  @Test
  void ratioOneNeverSkipsAndRatioZeroSkipsOnAnyNewGroup() {
    assertEquals(-1, skipsAt(new PartialSkipProbe(1, 1.0), TASK_ROWS, BATCH, n -> n));
    // minRows 1: the first batch warms up, the second is judged.
    assertEquals(2 * 64, skipsAt(new PartialSkipProbe(1, 0.0), 10_000, 64, n -> n));
    assertEquals(-1, skipsAt(new PartialSkipProbe(1, 0.0), 10_000, 64, n -> Math.min(n, 64)));
  }

  @Test
  void rejectsBadSettings() {
    assertThrows(IllegalArgumentException.class, () -> new PartialSkipProbe(0, 0.5));
    assertThrows(IllegalArgumentException.class, () -> new PartialSkipProbe(10, 1.5));
    assertThrows(IllegalArgumentException.class, () -> new PartialSkipProbe(10, Double.NaN));
  }
}
