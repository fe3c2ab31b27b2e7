package io.rowmatch.spark.config;

import java.io.Serializable;
import java.util.Locale;

import org.apache.spark.network.util.JavaUtils;
import org.apache.spark.sql.internal.SQLConf;

/**
 * The plugin's settings, read from the session's SQL conf when a plan is rewritten. The values an
 * executor needs (batch size, memory limit, time zone) are captured into the plan node, so executors
 * never read the session.
 */
public final class RowmatchConf implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final String ENABLED = "spark.rowmatch.enabled";
  public static final String AGGREGATE_ENABLED = "spark.rowmatch.aggregate.enabled";
  public static final String DEDUP_ENABLED = "spark.rowmatch.dedup.enabled";
  public static final String BATCH_SIZE = "spark.rowmatch.batchSize";
  public static final String MEMORY_LIMIT = "spark.rowmatch.memory.limit";
  public static final String EXPLAIN_FALLBACK = "spark.rowmatch.explainFallback";
  public static final String JOIN_ENABLED = "spark.rowmatch.join.enabled";
  public static final String JOIN_REPLACE_SORT_MERGE = "spark.rowmatch.join.replaceSortMergeJoin";
  public static final String SHUFFLE_ENABLED = "spark.rowmatch.shuffle.enabled";
  public static final String SKIP_PARTIAL_ENABLED = "spark.rowmatch.aggregate.skipPartial.enabled";
  public static final String SKIP_PARTIAL_MIN_ROWS = "spark.rowmatch.aggregate.skipPartial.minRows";
  public static final String SKIP_PARTIAL_RATIO = "spark.rowmatch.aggregate.skipPartial.ratio";

  public static final boolean ENABLED_DEFAULT = true;
  public static final boolean AGGREGATE_ENABLED_DEFAULT = true;
  public static final boolean DEDUP_ENABLED_DEFAULT = true;
  public static final int BATCH_SIZE_DEFAULT = 8192;
  public static final String MEMORY_LIMIT_DEFAULT = "2g";
  public static final boolean EXPLAIN_FALLBACK_DEFAULT = false;
  public static final boolean JOIN_ENABLED_DEFAULT = true;
  public static final boolean JOIN_REPLACE_SORT_MERGE_DEFAULT = true;
  public static final boolean SHUFFLE_ENABLED_DEFAULT = true;
  /**
   * Off by default: measured on the 10M-row benchmark it saved nothing on dropDuplicates (all keys distinct
   * per task) and halved distinct(s1, s2), whose 997K groups per task all look new over the first 262K rows.
   */
  public static final boolean SKIP_PARTIAL_ENABLED_DEFAULT = false;
  /**
   * A partial aggregate judges its input only after this many rows: a group-by with 100K groups per task
   * looks all-distinct over its first 100K rows although its whole input reduces 10x.
   */
  public static final long SKIP_PARTIAL_MIN_ROWS_DEFAULT = 262_144;
  /** Skip when more than this share of the latest rows made new groups (DataFusion and Velox use 0.8). */
  public static final double SKIP_PARTIAL_RATIO_DEFAULT = 0.8;

  private final boolean enabled;
  private final boolean aggregateEnabled;
  private final boolean dedupEnabled;
  private final int batchSize;
  private final long memoryLimitBytes;
  private final boolean explainFallback;
  private final String sessionTimeZone;
  private boolean joinEnabled = JOIN_ENABLED_DEFAULT;
  private boolean joinReplaceSortMerge = JOIN_REPLACE_SORT_MERGE_DEFAULT;
  private boolean shuffleEnabled = SHUFFLE_ENABLED_DEFAULT;
  private boolean skipPartialEnabled = SKIP_PARTIAL_ENABLED_DEFAULT;
  private long skipPartialMinRows = SKIP_PARTIAL_MIN_ROWS_DEFAULT;
  private double skipPartialRatio = SKIP_PARTIAL_RATIO_DEFAULT;

  public RowmatchConf(boolean enabled, boolean aggregateEnabled, boolean dedupEnabled, int batchSize,
      long memoryLimitBytes, boolean explainFallback, String sessionTimeZone) {
    if (batchSize <= 0) {
      throw new IllegalArgumentException(BATCH_SIZE + " must be positive, got " + batchSize);
    }
    if (memoryLimitBytes <= 0) {
      throw new IllegalArgumentException(MEMORY_LIMIT + " must be positive, got " + memoryLimitBytes);
    }
    this.enabled = enabled;
    this.aggregateEnabled = aggregateEnabled;
    this.dedupEnabled = dedupEnabled;
    this.batchSize = batchSize;
    this.memoryLimitBytes = memoryLimitBytes;
    this.explainFallback = explainFallback;
    this.sessionTimeZone = sessionTimeZone;
  }

  /** The settings of the session whose plan is being rewritten (SQLConf.get is the active session's). */
  public static RowmatchConf current() {
    return from(SQLConf.get());
  }

  public static RowmatchConf from(SQLConf conf) {
    RowmatchConf c = new RowmatchConf(
        bool(conf, ENABLED, ENABLED_DEFAULT),
        bool(conf, AGGREGATE_ENABLED, AGGREGATE_ENABLED_DEFAULT),
        bool(conf, DEDUP_ENABLED, DEDUP_ENABLED_DEFAULT),
        integer(conf, BATCH_SIZE, BATCH_SIZE_DEFAULT),
        bytes(conf, MEMORY_LIMIT, MEMORY_LIMIT_DEFAULT),
        bool(conf, EXPLAIN_FALLBACK, EXPLAIN_FALLBACK_DEFAULT),
        conf.sessionLocalTimeZone());
    c.joinEnabled = bool(conf, JOIN_ENABLED, JOIN_ENABLED_DEFAULT);
    c.joinReplaceSortMerge = bool(conf, JOIN_REPLACE_SORT_MERGE, JOIN_REPLACE_SORT_MERGE_DEFAULT);
    c.shuffleEnabled = bool(conf, SHUFFLE_ENABLED, SHUFFLE_ENABLED_DEFAULT);
    c.skipPartialEnabled = bool(conf, SKIP_PARTIAL_ENABLED, SKIP_PARTIAL_ENABLED_DEFAULT);
    c.skipPartialMinRows = longValue(conf, SKIP_PARTIAL_MIN_ROWS, SKIP_PARTIAL_MIN_ROWS_DEFAULT);
    if (c.skipPartialMinRows < 1) {
      throw new IllegalArgumentException(SKIP_PARTIAL_MIN_ROWS + " must be at least 1, got " + c.skipPartialMinRows);
    }
    c.skipPartialRatio = fraction(conf, SKIP_PARTIAL_RATIO, SKIP_PARTIAL_RATIO_DEFAULT);
    return c;
  }

  private static boolean bool(SQLConf conf, String key, boolean dflt) {
    String v = conf.getConfString(key, Boolean.toString(dflt)).trim().toLowerCase(Locale.ROOT);
    if (v.equals("true")) {
      return true;
    }
    if (v.equals("false")) {
      return false;
    }
    throw new IllegalArgumentException(key + " must be true or false, got '" + v + "'");
  }

  private static int integer(SQLConf conf, String key, int dflt) {
    long v = longValue(conf, key, dflt);
    if (v != (int) v) {
      throw new IllegalArgumentException(key + " must be an integer, got '" + v + "'");
    }
    return (int) v;
  }

  private static long longValue(SQLConf conf, String key, long dflt) {
    String v = conf.getConfString(key, Long.toString(dflt)).trim();
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be an integer, got '" + v + "'", e);
    }
  }

  /** A number in [0, 1]. */
  private static double fraction(SQLConf conf, String key, double dflt) {
    String v = conf.getConfString(key, Double.toString(dflt)).trim();
    double d;
    try {
      d = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a number between 0 and 1, got '" + v + "'", e);
    }
    if (!(d >= 0.0 && d <= 1.0)) {
      throw new IllegalArgumentException(key + " must be a number between 0 and 1, got '" + v + "'");
    }
    return d;
  }

  private static long bytes(SQLConf conf, String key, String dflt) {
    String v = conf.getConfString(key, dflt).trim();
    try {
      return JavaUtils.byteStringAsBytes(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a size such as 512m or 2g, got '" + v + "'", e);
    }
  }

  public boolean enabled() { return enabled; }
  public boolean aggregateEnabled() { return aggregateEnabled; }
  public boolean dedupEnabled() { return dedupEnabled; }
  public int batchSize() { return batchSize; }
  public long memoryLimitBytes() { return memoryLimitBytes; }
  public boolean explainFallback() { return explainFallback; }
  public String sessionTimeZone() { return sessionTimeZone; }
  public boolean joinEnabled() { return joinEnabled; }
  public boolean joinReplaceSortMerge() { return joinReplaceSortMerge; }
  public boolean shuffleEnabled() { return shuffleEnabled; }
  public boolean skipPartialEnabled() { return skipPartialEnabled; }
  public long skipPartialMinRows() { return skipPartialMinRows; }
  public double skipPartialRatio() { return skipPartialRatio; }
}
