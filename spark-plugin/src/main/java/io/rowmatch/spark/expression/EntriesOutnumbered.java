package io.rowmatch.spark.expression;

/**
 * When deciding a set of entries once (a Parquet chunk's dictionary, a broadcast build column's rows) pays: once the
 * rows seen under that set outnumber its entries; until then the rows are taken one by one, counted against it. A
 * set is named by its identity ({@code equals}); seeing another set starts the count again. One per column of a
 * task's operator (the dictionary conjuncts and probes, the per-source-row expressions share this rule).
 */
public final class EntriesOutnumbered {
  private Object waiting;
  private long rows;

  /** Counts {@code batchRows} more rows under {@code set}, of {@code entries} entries: true once they reach them. */
  public boolean count(Object set, int batchRows, long entries) {
    if (!set.equals(waiting)) {
      waiting = set;
      rows = 0;
    }
    rows += batchRows;
    return rows >= entries;
  }
}
