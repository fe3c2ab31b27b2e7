package io.rowmatch.spark.config;

import java.io.Serializable;
import java.util.List;
import java.util.function.Function;

import org.apache.spark.internal.config.ConfigBuilder;
import org.apache.spark.internal.config.ConfigEntry;
import org.apache.spark.network.util.ByteUnit;
import org.apache.spark.sql.internal.SQLConf;

/**
 * The plugin's settings, declared once each with Spark's own ConfigBuilder (key, type, default, doc,
 * validation, internal), and a snapshot of their values read from the session's SQL conf when a plan is
 * rewritten. The entries are registered in Spark's SQLConf, so {@code SET -v} lists them and a bad value is
 * refused where it is set, with Spark's error naming the setting. The values an executor needs (batch size,
 * memory limit, time zone) are captured into the plan node, so executors never read the session.
 *
 * <p>Adding a setting: one entry below (added to {@link #ENTRIES}), one field read in the constructor and its
 * accessor, and its row in the README's settings table (RowmatchConfTest checks the table against the
 * entries).
 */
public final class RowmatchConf implements Serializable {
  private static final long serialVersionUID = 1L;

  // ConfigBuilder is Scala: its typed builders and entries are generic over boxed values (Object here).

  public static final ConfigEntry<Object> ENABLED_ENTRY = setting("spark.rowmatch.enabled", b -> b
      .doc("master switch, read when a query is planned")
      .version("0.1.0").booleanConf().createWithDefault(true));

  public static final ConfigEntry<Object> AGGREGATE_ENABLED_ENTRY =
      setting("spark.rowmatch.aggregate.enabled", b -> b
          .doc("replace hash/object-hash/sort aggregations (count, sum, avg, min, max, first, last, stddev and variance)")
          .version("0.1.0").booleanConf().createWithDefault(true));

  public static final ConfigEntry<Object> DEDUP_ENABLED_ENTRY = setting("spark.rowmatch.dedup.enabled", b -> b
      .doc("replace `distinct` and `dropDuplicates` (no functions, or only `first`)")
      .version("0.1.0").booleanConf().createWithDefault(true));

  public static final ConfigEntry<Object> JOIN_ENABLED_ENTRY = setting("spark.rowmatch.join.enabled", b -> b
      .doc("run broadcast hash, shuffled hash and sort-merge equi-joins as `RowmatchHashJoin`")
      .version("0.1.0").booleanConf().createWithDefault(true));

  public static final ConfigEntry<Object> JOIN_REPLACE_SORT_MERGE_ENTRY =
      setting("spark.rowmatch.join.replaceSortMergeJoin", b -> b
          .doc("also replace sort-merge joins (run as a shuffled hash join)")
          .version("0.1.0").booleanConf().createWithDefault(true));

  public static final ConfigEntry<Object> SHUFFLE_ENABLED_ENTRY = setting("spark.rowmatch.shuffle.enabled", b -> b
      .doc("a shuffle that feeds a Rowmatch join or aggregate moves Arrow batches (`RowmatchShuffleExchange`)"
          + " instead of rows")
      .version("0.1.0").booleanConf().createWithDefault(true));

  public static final ConfigEntry<Object> BROADCAST_ENABLED_ENTRY = setting("spark.rowmatch.broadcast.enabled", b -> b
      .doc("the build side of a Rowmatch broadcast join is broadcast as compressed Arrow batches"
          + " (`RowmatchBroadcastExchange`, no hash relation built on the driver) instead of Spark's hash relation")
      .version("0.1.0").booleanConf().createWithDefault(true));

  public static final ConfigEntry<Object> BATCH_SIZE_ENTRY = setting("spark.rowmatch.batchSize", b -> b
      .doc("rows per Arrow batch")
      .version("0.1.0").intConf().checkValue(v -> (Integer) v > 0, "must be positive").createWithDefault(8192));

  public static final ConfigEntry<Object> MEMORY_LIMIT_ENTRY = setting("spark.rowmatch.memory.limit", b -> b
      .doc("hard ceiling per task on Rowmatch's memory (Arrow buffers and aggregation state on the Java heap)."
          + " Below it, memory is reserved from Spark's memory manager; when Spark grants no more, aggregations,"
          + " dedups and shuffled joins spill to disk, while what cannot spill (a broadcast build side) goes on up to this ceiling;"
          + " past it the task fails with an error naming this setting")
      .version("0.1.0").bytesConf(ByteUnit.BYTE).checkValue(v -> (Long) v > 0, "must be positive")
      .createWithDefaultString("2g"));

  public static final ConfigEntry<Object> EXPLAIN_FALLBACK_ENTRY = setting("spark.rowmatch.explainFallback", b -> b
      .doc("log a WARN line for each operator kept vanilla, with the reason")
      .version("0.1.0").booleanConf().createWithDefault(false));

  /**
   * Off by default: measured on the 10M-row benchmark it saved nothing on dropDuplicates (all keys distinct
   * per task) and halved distinct(s1, s2), whose 997K groups per task all look new over the first 262K rows.
   */
  public static final ConfigEntry<Object> SKIP_PARTIAL_ENABLED_ENTRY =
      setting("spark.rowmatch.aggregate.skipPartial.enabled", b -> b
          .doc("let a partial aggregation stop aggregating once its input reduces too little and pass its"
              + " remaining rows on as Spark's partial buffers (the final aggregation merges them; first/last,"
              + " min/max, count, and sum/avg over integral and floating inputs). Off by default: on the 10M"
              + " benchmark it saved no time and slowed a `distinct` whose groups repeat only after about 1M"
              + " rows; it does keep a partial over very many distinct keys small in memory")
          .version("0.1.0").booleanConf().createWithDefault(false));

  /**
   * A partial aggregate judges its input only after this many rows: a group-by with 100K groups per task
   * looks all-distinct over its first 100K rows although its whole input reduces 10x.
   */
  public static final ConfigEntry<Object> SKIP_PARTIAL_MIN_ROWS_ENTRY =
      setting("spark.rowmatch.aggregate.skipPartial.minRows", b -> b
          .doc("rows a partial aggregation reads per task before it first decides; after that it judges each"
              + " window of minRows/2 rows")
          .version("0.1.0").longConf().checkValue(v -> (Long) v >= 1, "must be at least 1")
          .createWithDefault(262_144L));

  /** Skip when more than this share of the latest rows made new groups (DataFusion and Velox use 0.8). */
  public static final ConfigEntry<Object> SKIP_PARTIAL_RATIO_ENTRY =
      setting("spark.rowmatch.aggregate.skipPartial.ratio", b -> b
          .doc("skip when more than this share of a window's rows made new groups (0 to 1; 1 never skips)")
          .version("0.1.0").doubleConf()
          .checkValue(v -> (Double) v >= 0.0 && (Double) v <= 1.0, "must be a number between 0 and 1")
          .createWithDefault(0.8));

  public static final ConfigEntry<Object> PLACEMENT_ENABLED_ENTRY = setting("spark.rowmatch.placement.enabled", b -> b
      .doc("replace operators only where it pays: a connected group of Rowmatch operators that takes over less"
          + " work than the row/Arrow transitions it adds stays vanilla, with the reason in EXPLAIN (see"
          + " `minWorkPerTransition`); false replaces every supported operator")
      .version("0.1.0").booleanConf().createWithDefault(true));

  /**
   * Work units: 1 per join, aggregate or Arrow shuffle, 2 for a join that replaces a sort-merge join (its two
   * sorts go too), 0 for a filter, projection or broadcast. At 1, a lone join or aggregate between row operators
   * (two transitions) stays vanilla and a partial + shuffle + final aggregation over rows (three) is replaced.
   */
  public static final ConfigEntry<Object> PLACEMENT_MIN_WORK_ENTRY =
      setting("spark.rowmatch.placement.minWorkPerTransition", b -> b
          .doc("work a group of Rowmatch operators must take over per row/Arrow transition it adds: 1 per join,"
              + " aggregation or Arrow shuffle, 2 per replaced sort-merge join, 0 per filter or projection;"
              + " 0 replaces everything supported")
          .version("0.1.0").doubleConf().checkValue(v -> (Double) v >= 0.0, "must be at least 0")
          .createWithDefault(1.0));

  /**
   * TPC-DS q72 at SF 1: its catalog_sales x inventory sort-merge join on item with `inv_quantity_on_hand <
   * cs_quantity` ran 0.20x as a Rowmatch hash join: hundreds of pairs per key, each tested on row views. Re-measured
   * with the condition on the columnar kernels (2026-12-02): still slower, q72 ~16.4 s with it vs ~11.1 s with the
   * sort-merge join kept (the pairs' reads of the build columns are scattered).
   */
  public static final ConfigEntry<Object> PLACEMENT_CONDITIONAL_SMJ_ENTRY =
      setting("spark.rowmatch.placement.conditionalSortMergeJoin", b -> b
          .doc("also replace an inner or outer sort-merge join that has a condition besides its keys. Off by default: every pair"
              + " of rows with equal keys is tested against the condition (such a join is replaced anyway when Spark's"
              + " distinct keys say one side holds each key once, as an aggregate grouped by the join keys does: one"
              + " test per row, and when an inner join's condition compares an int or date column of each side: each row"
              + " meets only the rows that comparison holds for); TPC-DS q72 ran 0.20x vanilla as a Rowmatch hash join"
              + " when that test ran on row views,"
              + " and about 0.7x with the condition on the columnar kernels")
          .version("0.1.0").booleanConf().createWithDefault(false));

  public static final ConfigEntry<Object> WINDOW_GROUP_LIMIT_ENABLED_ENTRY =
      setting("spark.rowmatch.windowGroupLimit.enabled", b -> b
          .doc("run Spark's partial window group limit (the per-task pre-filter of rank() <= k and row_number() <= k"
              + " before their shuffle) without the sort under it")
          .version("0.1.0").booleanConf().createWithDefault(true));

  /**
   * A partial limit keeps per group the rows that can still rank within the limit; past this many bytes it emits
   * them all and starts again (the final limit after the shuffle still gives the answer): memory stays bounded
   * whatever the number of groups or ties.
   */
  public static final ConfigEntry<Object> WINDOW_GROUP_LIMIT_BUFFER_ENTRY =
      setting("spark.rowmatch.windowGroupLimit.bufferSize", b -> b
          .doc("bytes of rows a partial window group limit keeps per task (reserved from Spark's execution memory as they"
              + " grow) before it emits them and starts again; also when Spark refuses the memory")
          .version("0.1.0").bytesConf(ByteUnit.BYTE).checkValue(v -> (Long) v >= 0, "must be at least 0")
          .createWithDefaultString("16m"));

  public static final ConfigEntry<Object> WINDOW_SORT_ENABLED_ENTRY =
      setting("spark.rowmatch.windowSort.enabled", b -> b
          .doc("under a window with PARTITION BY keys (and a final window group limit), group the rows by a hash map"
              + " of their keys and sort each group alone, instead of Spark's sort of the whole task's rows")
          .version("0.1.0").booleanConf().createWithDefault(true));

  /** Past this, a task's rows go through Spark's own sorter for the window (it spills); below, they are held. */
  public static final ConfigEntry<Object> WINDOW_SORT_BUFFER_ENTRY =
      setting("spark.rowmatch.windowSort.bufferSize", b -> b
          .doc("bytes of rows a window's group-wise sort holds per task (reserved from Spark's execution memory as they"
              + " grow); past them, or when Spark refuses the memory, the rows go through Spark's sorter (which spills)")
          .version("0.1.0").bytesConf(ByteUnit.BYTE).checkValue(v -> (Long) v >= 0, "must be at least 0")
          .createWithDefaultString("64m"));

  // Test-only settings (internal: hidden from SET -v and from the README's table); see testing.TestFaults.
  // Strings here: TestFaults reads them from the task's local properties and parses them itself.

  /** A startup (SparkConf) switch: without it the fault settings below do nothing, whoever sets them. */
  public static final ConfigEntry<Object> TEST_FAULTS_ENABLED_ENTRY = setting("spark.rowmatch.test.faultsEnabled",
      b -> b.internal().doc("test-only: let the spark.rowmatch.test.* fault settings take effect; read from the"
          + " SparkConf at startup, never from a session").version("0.1.0").booleanConf().createWithDefault(false));

  public static final ConfigEntry<scala.Option<String>> TEST_FAIL_AFTER_BATCHES_ENTRY =
      setting("spark.rowmatch.test.failAfterBatches", b -> b.internal()
          .doc("test-only: the first attempt of each task fails after this many input batches of a Rowmatch operator")
          .version("0.1.0").stringConf().createOptional());

  public static final ConfigEntry<scala.Option<String>> TEST_PAUSE_FILE_ENTRY = setting("spark.rowmatch.test.pauseFile", b -> b
      .internal().doc("test-only: the first such task writes its pid to this file and sleeps, to be killed")
      .version("0.1.0").stringConf().createOptional());

  public static final ConfigEntry<scala.Option<String>> TEST_FAULT_OPERATOR_ENTRY = setting("spark.rowmatch.test.faultOperator",
      b -> b.internal().doc("test-only: limits the faults to operators whose name starts with this")
          .version("0.1.0").stringConf().createOptional());

  public static final ConfigEntry<scala.Option<String>> TEST_TASK_MEMORY_GRANT_ENTRY =
      setting("spark.rowmatch.test.taskMemoryGrant", b -> b.internal()
          .doc("test-only: the most memory Spark's memory manager grants a task's Rowmatch operators (bytes or"
              + " 4m style), so that a few MB force every spill path; needs spark.rowmatch.test.faultsEnabled")
          .version("0.1.0").stringConf().createOptional());

  public static final ConfigEntry<scala.Option<String>> TEST_BUILT_FOR_SPARK_LINE_ENTRY =
      setting(io.rowmatch.spark.RowmatchSetupCheck.BUILT_FOR_LINE_OVERRIDE, b -> b.internal()
          .doc("test-only: the Spark line this jar claims it was built for (e.g. 4.1), read from the SparkConf at session"
              + " start in place of the jar's rowmatch-build.properties, to test the Spark-line check")
          .version("0.1.0").stringConf().createOptional());

  /**
   * Declares a setting in Spark's SQLConf registry. If this class was loaded before in another class loader
   * of the JVM (an isolated session loader), the key is registered already: the same entry, unregistered.
   */
  private static <T> ConfigEntry<T> setting(String key, Function<ConfigBuilder, ConfigEntry<T>> declare) {
    try {
      return declare.apply(SQLConf.buildConf(key));
    } catch (IllegalArgumentException alreadyRegistered) {
      return declare.apply(new ConfigBuilder(key));
    }
  }

  /** Every setting users may set, in the README table's order (the test-only ones are not listed). */
  public static final List<ConfigEntry<Object>> ENTRIES = List.of(ENABLED_ENTRY, AGGREGATE_ENABLED_ENTRY,
      DEDUP_ENABLED_ENTRY, JOIN_ENABLED_ENTRY, JOIN_REPLACE_SORT_MERGE_ENTRY, SHUFFLE_ENABLED_ENTRY, BROADCAST_ENABLED_ENTRY,
      BATCH_SIZE_ENTRY, MEMORY_LIMIT_ENTRY, EXPLAIN_FALLBACK_ENTRY, SKIP_PARTIAL_ENABLED_ENTRY,
      SKIP_PARTIAL_MIN_ROWS_ENTRY, SKIP_PARTIAL_RATIO_ENTRY, PLACEMENT_ENABLED_ENTRY, PLACEMENT_MIN_WORK_ENTRY,
      PLACEMENT_CONDITIONAL_SMJ_ENTRY, WINDOW_GROUP_LIMIT_ENABLED_ENTRY, WINDOW_GROUP_LIMIT_BUFFER_ENTRY,
      WINDOW_SORT_ENABLED_ENTRY, WINDOW_SORT_BUFFER_ENTRY);

  // The keys, for messages and tests.
  public static final String ENABLED = ENABLED_ENTRY.key();
  public static final String AGGREGATE_ENABLED = AGGREGATE_ENABLED_ENTRY.key();
  public static final String DEDUP_ENABLED = DEDUP_ENABLED_ENTRY.key();
  public static final String JOIN_ENABLED = JOIN_ENABLED_ENTRY.key();
  public static final String JOIN_REPLACE_SORT_MERGE = JOIN_REPLACE_SORT_MERGE_ENTRY.key();
  public static final String SHUFFLE_ENABLED = SHUFFLE_ENABLED_ENTRY.key();
  public static final String BROADCAST_ENABLED = BROADCAST_ENABLED_ENTRY.key();
  public static final String BATCH_SIZE = BATCH_SIZE_ENTRY.key();
  public static final String MEMORY_LIMIT = MEMORY_LIMIT_ENTRY.key();
  public static final String EXPLAIN_FALLBACK = EXPLAIN_FALLBACK_ENTRY.key();
  public static final String SKIP_PARTIAL_ENABLED = SKIP_PARTIAL_ENABLED_ENTRY.key();
  public static final String SKIP_PARTIAL_MIN_ROWS = SKIP_PARTIAL_MIN_ROWS_ENTRY.key();
  public static final String SKIP_PARTIAL_RATIO = SKIP_PARTIAL_RATIO_ENTRY.key();
  public static final String PLACEMENT_ENABLED = PLACEMENT_ENABLED_ENTRY.key();
  public static final String PLACEMENT_MIN_WORK = PLACEMENT_MIN_WORK_ENTRY.key();
  public static final String PLACEMENT_CONDITIONAL_SMJ = PLACEMENT_CONDITIONAL_SMJ_ENTRY.key();
  public static final String WINDOW_GROUP_LIMIT_ENABLED = WINDOW_GROUP_LIMIT_ENABLED_ENTRY.key();
  public static final String WINDOW_GROUP_LIMIT_BUFFER = WINDOW_GROUP_LIMIT_BUFFER_ENTRY.key();
  public static final String WINDOW_SORT_ENABLED = WINDOW_SORT_ENABLED_ENTRY.key();
  public static final String WINDOW_SORT_BUFFER = WINDOW_SORT_BUFFER_ENTRY.key();

  private final boolean enabled;
  private final boolean aggregateEnabled;
  private final boolean dedupEnabled;
  private final boolean joinEnabled;
  private final boolean joinReplaceSortMerge;
  private final boolean shuffleEnabled;
  private final boolean broadcastEnabled;
  private final int batchSize;
  private final long memoryLimitBytes;
  private final boolean explainFallback;
  private final boolean skipPartialEnabled;
  private final long skipPartialMinRows;
  private final double skipPartialRatio;
  private final boolean placementEnabled;
  private final double placementMinWork;
  private final boolean placementConditionalSmj;
  private final boolean windowGroupLimitEnabled;
  private final long windowGroupLimitBufferBytes;
  private final boolean windowSortEnabled;
  private final long windowSortBufferBytes;
  private final String sessionTimeZone;

  private RowmatchConf(SQLConf conf) {
    this.enabled = (Boolean) read(conf, ENABLED_ENTRY);
    this.aggregateEnabled = (Boolean) read(conf, AGGREGATE_ENABLED_ENTRY);
    this.dedupEnabled = (Boolean) read(conf, DEDUP_ENABLED_ENTRY);
    this.joinEnabled = (Boolean) read(conf, JOIN_ENABLED_ENTRY);
    this.joinReplaceSortMerge = (Boolean) read(conf, JOIN_REPLACE_SORT_MERGE_ENTRY);
    this.shuffleEnabled = (Boolean) read(conf, SHUFFLE_ENABLED_ENTRY);
    this.broadcastEnabled = (Boolean) read(conf, BROADCAST_ENABLED_ENTRY);
    this.batchSize = (Integer) read(conf, BATCH_SIZE_ENTRY);
    this.memoryLimitBytes = (Long) read(conf, MEMORY_LIMIT_ENTRY);
    this.explainFallback = (Boolean) read(conf, EXPLAIN_FALLBACK_ENTRY);
    this.skipPartialEnabled = (Boolean) read(conf, SKIP_PARTIAL_ENABLED_ENTRY);
    this.skipPartialMinRows = (Long) read(conf, SKIP_PARTIAL_MIN_ROWS_ENTRY);
    this.skipPartialRatio = (Double) read(conf, SKIP_PARTIAL_RATIO_ENTRY);
    this.placementEnabled = (Boolean) read(conf, PLACEMENT_ENABLED_ENTRY);
    this.placementMinWork = (Double) read(conf, PLACEMENT_MIN_WORK_ENTRY);
    this.placementConditionalSmj = (Boolean) read(conf, PLACEMENT_CONDITIONAL_SMJ_ENTRY);
    this.windowGroupLimitEnabled = (Boolean) read(conf, WINDOW_GROUP_LIMIT_ENABLED_ENTRY);
    this.windowGroupLimitBufferBytes = (Long) read(conf, WINDOW_GROUP_LIMIT_BUFFER_ENTRY);
    this.windowSortEnabled = (Boolean) read(conf, WINDOW_SORT_ENABLED_ENTRY);
    this.windowSortBufferBytes = (Long) read(conf, WINDOW_SORT_BUFFER_ENTRY);
    this.sessionTimeZone = conf.sessionLocalTimeZone();
  }

  /** The settings of the session whose plan is being rewritten (SQLConf.get is the active session's). */
  public static RowmatchConf current() {
    return from(SQLConf.get());
  }

  /**
   * The settings of {@code conf}; parsed again only when one of them (or the session time zone) changed since the
   * last call for the same conf: the planner rules ask at every AQE re-optimization, and parsing a size setting
   * costs a regular expression.
   */
  public static RowmatchConf from(SQLConf conf) {
    String[] raw = new String[ENTRIES.size() + 1];
    for (int i = 0; i < ENTRIES.size(); i++) {
      raw[i] = conf.getConfString(ENTRIES.get(i).key(), null);
    }
    raw[ENTRIES.size()] = conf.sessionLocalTimeZone();
    Parsed last = lastParsed;
    if (last != null && last.conf == conf && java.util.Arrays.equals(last.raw, raw)) {
      return last.settings;
    }
    RowmatchConf settings = new RowmatchConf(conf);
    lastParsed = new Parsed(conf, raw, settings);
    return settings;
  }

  private record Parsed(SQLConf conf, String[] raw, RowmatchConf settings) {
  }

  private static volatile Parsed lastParsed;

  /**
   * Spark validates a registered setting where it is set; a value that reached the conf another way (a
   * SparkConf read before the entries were registered) is validated here, with the same message.
   */
  private static Object read(SQLConf conf, ConfigEntry<Object> entry) {
    try {
      return conf.getConf(entry);
    } catch (RuntimeException e) {
      if (e.getMessage() != null && e.getMessage().contains(entry.key())) {
        throw e;
      }
      throw new IllegalArgumentException(entry.key() + ": " + e.getMessage(), e);
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

  public boolean broadcastEnabled() { return broadcastEnabled; }
  public boolean skipPartialEnabled() { return skipPartialEnabled; }
  public long skipPartialMinRows() { return skipPartialMinRows; }
  public double skipPartialRatio() { return skipPartialRatio; }
  public boolean placementEnabled() { return placementEnabled; }
  public double placementMinWork() { return placementMinWork; }
  public boolean placementConditionalSmj() { return placementConditionalSmj; }
  public boolean windowGroupLimitEnabled() { return windowGroupLimitEnabled; }
  public long windowGroupLimitBufferBytes() { return windowGroupLimitBufferBytes; }
  public boolean windowSortEnabled() { return windowSortEnabled; }
  public long windowSortBufferBytes() { return windowSortBufferBytes; }
}
