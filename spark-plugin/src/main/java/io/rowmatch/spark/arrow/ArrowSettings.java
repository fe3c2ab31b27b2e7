package io.rowmatch.spark.arrow;

import java.io.Serializable;

import io.rowmatch.spark.config.RowmatchConf;

/** What an executor needs to build Arrow batches, captured from the session when the plan is made. */
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
  public String toString() {
    return "batchSize=" + batchSize;
  }
}
