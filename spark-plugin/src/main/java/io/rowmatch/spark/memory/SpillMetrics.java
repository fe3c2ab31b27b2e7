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

  /**
   * These metrics with the peak taken as the highest of all reports in the task, reported once when the task
   * completes (an operator that builds several tables, one per spill partition, reports each).
   */
  static SpillMetrics peakPerTask(org.apache.spark.TaskContext task, SpillMetrics metrics) {
    long[] peak = new long[1];
    task.addTaskCompletionListener((org.apache.spark.util.TaskCompletionListener) ctx -> {
      if (peak[0] > 0) {
        metrics.peakMemory(peak[0]);
      }
    });
    return new SpillMetrics() {
      @Override
      public void spilled(long bytes) {
        metrics.spilled(bytes);
      }

      @Override
      public void peakMemory(long bytes) {
        peak[0] = Math.max(peak[0], bytes);
      }

      @Override
      public void buildChunks(long chunks) {
        metrics.buildChunks(chunks);
      }
    };
  }

  /** One spill of {@code bytes} on disk. */
  void spilled(long bytes);

  /** The operator's peak memory in this task, reported once when it finishes. */
  void peakMemory(long bytes);

  /** A join joined one partition by {@code chunks} chunks of its build rows (a key too large for memory). */
  default void buildChunks(long chunks) {}
}
