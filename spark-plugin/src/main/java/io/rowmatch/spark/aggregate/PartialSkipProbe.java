package io.rowmatch.spark.aggregate;
/**
 * Decides when a partial aggregate should stop aggregating and pass its remaining rows through (the final
 * stage merges the repeats anyway): when the latest rows mostly created new groups, so aggregating them
 * costs a table probe per row and saves almost nothing in the shuffle.
 *
 * <p>It judges the marginal rate of new groups, not the share of groups over all rows so far: a group-by
 * whose input holds 100K groups per task in key order has seen as many groups as rows after its first 100K
 * rows, yet its next rows all hit existing groups. The first half-window of {@code minRows / 2} rows only
 * warms the table; from then on each window of at least that many rows is judged on its own: more than
 * {@code ratio} new groups per row in it means skip.
 */
public final class PartialSkipProbe {
  private final long window;
  private final double ratio;
  private long rows;
  /** Rows and groups at the start of the window being judged; rows -1 while the table warms up. */
  private long windowStartRows = -1;
  private long windowStartGroups;

  /** minRows: rows seen before the first decision (at least 1); ratio in [0, 1]. */
  public PartialSkipProbe(long minRows, double ratio) {
    if (minRows < 1 || !(ratio >= 0.0 && ratio <= 1.0)) {
      throw new IllegalArgumentException("minRows " + minRows + " and ratio " + ratio);
    }
    this.window = Math.max(1, minRows / 2);
    this.ratio = ratio;
  }

  /** After one more batch of batchRows rows, with groups distinct groups in the table: skip from now on? */
  public boolean skipAfter(int batchRows, long groups) {
    rows += batchRows;
    if (windowStartRows < 0) {
      if (rows >= window) {
        windowStartRows = rows;
        windowStartGroups = groups;
      }
      return false;
    }
    long windowRows = rows - windowStartRows;
    if (windowRows < window) {
      return false;
    }
    boolean skip = groups - windowStartGroups > ratio * windowRows;
    windowStartRows = rows;
    windowStartGroups = groups;
    return skip;
  }
}
