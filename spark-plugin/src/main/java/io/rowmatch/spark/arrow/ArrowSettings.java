package io.rowmatch.spark.arrow;

import java.io.Serializable;
import java.util.Objects;

import io.rowmatch.spark.config.RowmatchConf;

/**
 * What an executor needs to build Arrow batches, captured from the session when the plan is made. Equal by
 * value: plan nodes hold it as a constructor field, and two equal subtrees must canonicalize equal for
 * Spark to reuse an exchange or subquery (every node of one query captures the same settings).
 */
public final class ArrowSettings implements Serializable {
  private static final long serialVersionUID = 1L;

  public final String timeZone;
  public final int batchSize;
  public final long memoryLimit;

  public ArrowSettings(String timeZone, int batchSize, long memoryLimit) {
    this.timeZone = timeZone;
    this.batchSize = batchSize;
    this.memoryLimit = memoryLimit;
  }

  public static ArrowSettings of(RowmatchConf conf) {
    return new ArrowSettings(conf.sessionTimeZone(), conf.batchSize(), conf.memoryLimitBytes());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ArrowSettings other && Objects.equals(timeZone, other.timeZone)
        && batchSize == other.batchSize && memoryLimit == other.memoryLimit;
  }

  @Override
  public int hashCode() {
    return Objects.hash(timeZone, batchSize, memoryLimit);
  }

  @Override
  public String toString() {
    return "batchSize=" + batchSize;
  }
}
