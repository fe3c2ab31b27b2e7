package io.rowmatch.spark.memory;

/**
 * Where an operator reports its spills and its peak memory, for the SQL metrics Spark's own operators show
 * ("spill size", "number of spills", "peak memory"). Called on the task's thread.
 */
public interface SpillMetrics {
  /** No metrics (tests, callers without a plan node). */
  SpillMetrics NONE = new SpillMetrics() {
    @Override
    public void spilled(long bytes) {}

    @Override
    public void peakMemory(long bytes) {}
  };

  /** One spill of {@code bytes} on disk. */
  void spilled(long bytes);

  /** The operator's peak memory in this task, reported once when it finishes. */
  void peakMemory(long bytes);
}
