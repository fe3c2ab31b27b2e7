package io.rowmatch.spark.memory

import org.apache.spark.sql.execution.metric.SQLMetric

/**
 * A node's spill metrics as Spark's own operators name them ("spill size", "number of spills",
 * "peak memory"), fed by its runner. Serializable: it travels in the task closure with the metrics.
 */
case class SpillMetricsOf(spillSize: SQLMetric, numSpills: SQLMetric, peak: SQLMetric) extends SpillMetrics {
  override def spilled(bytes: Long): Unit = {
    spillSize += bytes
    numSpills += 1
  }

  override def peakMemory(bytes: Long): Unit = peak += bytes
}
