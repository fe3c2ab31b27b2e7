package io.rowmatch.bench.spark;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Plugin on vs off for issue 6's joins on generated Parquet data (local[2]): a build table of B rows (unique
 * keys) joined with a probe table of P rows (keys uniform over 2B, so about half the probe rows match), on
 * one bigint key and on (bigint, string), with the strategy forced by Spark's join hints (broadcast,
 * shuffle_hash, merge). Each query runs warm, engines interleaved, `reps` times; the Markdown table gives
 * medians and vanilla/rowmatch. Every run's row count is compared between engines, and the Rowmatch run's
 * plan must contain RowmatchHashJoin.
 *
 * <p>Usage: JoinBench [buildRows=1000000] [probeRows=10000000] [reps=3] [dataDir=target/join-bench-data]
 * [cases=all] [engines=both]. {@code cases}: a comma-separated list of substrings of the case names
 * ("shuffle_hash on bigint", "merge on (bigint, string)", ...); only matching cases run (each takes minutes at
 * the size). The pseudo-case {@code scan} times vanilla's scan + shuffle alone: both tables
 * repartitioned by the key and counted as Spark's internal rows, no join. {@code engines}: both, vanilla or
 * rowmatch (one engine only, e.g. under a profiler; the row count check then needs both, so it is skipped).
 * The output is counted as Spark's internal rows; see {@link #EXTERNAL_ROWS} for the other measure.
 */
public final class JoinBench {
  private JoinBench() {}

  public static void main(String[] args) {
    long build = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000L;
    long probe = args.length > 1 ? Long.parseLong(args[1]) : 10_000_000L;
    int reps = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    File dataDir = new File(args.length > 3 ? args[3] : "target/join-bench-data");
    String[] cases = (args.length > 4 ? args[4] : "all").split(",");
    String engines = args.length > 5 ? args[5] : "both";
    boolean runVanilla = !engines.equals("rowmatch");
    boolean runOurs = !engines.equals("vanilla");

    SparkSession spark = SparkSession.builder()
        .master("local[2]")
        .appName("rowmatch-join-bench")
        .config("spark.sql.extensions", "io.rowmatch.spark.RowmatchExtensions")
        .config("spark.rowmatch.placement.enabled", "false") // measure the operators themselves
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "4g")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config("spark.sql.broadcastTimeout", "1200")
        .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    spark.sparkContext().addSparkListener(TASK_CPU);
    try {
      File buildDir = new File(dataDir, "build-" + build);
      File probeDir = new File(dataDir, "probe-" + probe + "-over-" + build);
      if (!new File(buildDir, "_SUCCESS").exists()) {
        spark.range(0, build, 1, 4).selectExpr("id as k", "concat('s', cast(id % 1000 as string)) as ks",
                "id * 3 as bv")
            .write().mode("overwrite").parquet(buildDir.getAbsolutePath());
      }
      if (!new File(probeDir, "_SUCCESS").exists()) {
        spark.range(0, probe, 1, 8).selectExpr("cast(pmod(hash(id), " + (2 * build) + ") as bigint) as k", "id as pv")
            .selectExpr("k", "concat('s', cast(k % 1000 as string)) as ks", "pv")
            .write().mode("overwrite").parquet(probeDir.getAbsolutePath());
      }
      String b = buildDir.getAbsolutePath();
      String p = probeDir.getAbsolutePath();
      List<String> lines = new ArrayList<>();
      lines.add("| join (build " + build + " x probe " + probe + " rows, local[2]) | vanilla median s"
          + " | rowmatch median s | vanilla / rowmatch |");
      lines.add("|---|---|---|---|");
      List<String> cpuLines = new ArrayList<>();
      cpuLines.add("| join, task CPU time (sum over tasks) | vanilla median s | rowmatch median s | vanilla / rowmatch |");
      cpuLines.add("|---|---|---|---|");
      if (selected(cases, "scan")) {
        lines.add(scanAndShuffle(spark, b, p, reps));
      }
      String[][] keySets = {{"k"}, {"k", "ks"}};
      String[] hints = {"broadcast", "shuffle_hash", "merge"};
      for (String[] keys : keySets) {
        for (String hint : hints) {
          String name = hint + " on " + (keys.length == 1 ? "bigint" : "(bigint, string)");
          if (!selected(cases, name)) {
            continue;
          }
          java.util.function.Function<SparkSession, Dataset<Row>> q = s -> {
            Dataset<Row> pr = s.read().parquet(p);
            Dataset<Row> br = s.read().parquet(b).hint(hint);
            return pr.join(br, scala.jdk.javaapi.CollectionConverters.asScala(Arrays.asList(keys)).toSeq());
          };
          double[] vanilla = new double[reps];
          double[] ours = new double[reps];
          double[] vanillaCpu = new double[reps];
          double[] oursCpu = new double[reps];
          lastCount = -1;
          if (runVanilla) {
            run(spark, q, false);
          }
          if (runOurs) {
            run(spark, q, true);
          }
          for (int r = 0; r < reps; r++) {
            vanilla[r] = runVanilla ? run(spark, q, false) : Double.NaN;
            vanillaCpu[r] = runVanilla ? lastCpuSeconds : Double.NaN;
            ours[r] = runOurs ? run(spark, q, true) : Double.NaN;
            oursCpu[r] = runOurs ? lastCpuSeconds : Double.NaN;
            System.out.printf(Locale.ROOT, "%s rep %d: vanilla %.2f s (task CPU %.2f s), rowmatch %.2f s (task CPU %.2f s)%n",
                name, r, vanilla[r], vanillaCpu[r], ours[r], oursCpu[r]);
          }
          double mv = median(vanilla);
          double mo = median(ours);
          lines.add(String.format(Locale.ROOT, "| %s | %.2f | %.2f | %.2fx |", name, mv, mo, mv / mo));
          double cv = median(vanillaCpu);
          double co = median(oursCpu);
          cpuLines.add(String.format(Locale.ROOT, "| %s | %.2f | %.2f | %.2fx |", name, cv, co, cv / co));
        }
      }
      System.out.println();
      lines.forEach(System.out::println);
      System.out.println();
      cpuLines.forEach(System.out::println);
    } finally {
      spark.stop();
    }
  }

  /**
   * How the join's output is consumed. By default as Spark's internal rows ({@code toRdd().count()}, what the
   * {@code noop} sink and any columnar writer consume): every output column is materialized, nothing more.
   * {@code -Djoinbench.rows=external} converts each row to a {@code Row} first ({@code javaRDD().count()}), the
   * measure before session 5, where that conversion, the same for both engines, was a fifth of the time.
   */
  private static final boolean EXTERNAL_ROWS = "external".equals(System.getProperty("joinbench.rows"));

  private static long lastCount = -1;
  private static double lastCpuSeconds;

  /**
   * Sums the executor CPU time of every finished task: on a machine shared with other work, wall time also
   * counts the time a task waited for a core, CPU time mostly does not.
   */
  private static final class TaskCpu extends org.apache.spark.scheduler.SparkListener {
    private final java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();

    @Override
    public void onTaskEnd(org.apache.spark.scheduler.SparkListenerTaskEnd end) {
      if (end.taskMetrics() != null) {
        nanos.addAndGet(end.taskMetrics().executorCpuTime());
      }
    }
  }

  private static final TaskCpu TASK_CPU = new TaskCpu();

  /** Task-end events reach listeners asynchronously: wait for them before reading the CPU sum. */
  private static void drainListeners(SparkSession spark) {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not drain", e);
    }
  }

  private static double run(SparkSession spark, java.util.function.Function<SparkSession, Dataset<Row>> query,
      boolean rowmatch) {
    spark.conf().set("spark.rowmatch.enabled", Boolean.toString(rowmatch));
    Dataset<Row> df = query.apply(spark);
    drainListeners(spark);
    long cpu0 = TASK_CPU.nanos.get();
    long t0 = System.nanoTime();
    long count = EXTERNAL_ROWS ? df.javaRDD().count() : df.queryExecution().toRdd().count();
    double seconds = (System.nanoTime() - t0) / 1e9;
    drainListeners(spark);
    lastCpuSeconds = (TASK_CPU.nanos.get() - cpu0) / 1e9;
    String plan = df.queryExecution().executedPlan().treeString();
    if (Boolean.getBoolean("joinbench.explain")) {
      System.out.println((rowmatch ? "rowmatch" : "vanilla") + " plan:\n" + plan);
    }
    if (rowmatch && !plan.contains("RowmatchHashJoin")) {
      throw new IllegalStateException("Rowmatch did not replace the join:\n" + plan);
    }
    if (!rowmatch) {
      lastCount = count;
    } else if (lastCount >= 0 && count != lastCount) {
      throw new IllegalStateException("row counts differ: vanilla " + lastCount + ", rowmatch " + count);
    }
    return seconds;
  }

  private static boolean selected(String[] cases, String name) {
    for (String c : cases) {
      if (c.equals("all") ? !name.equals("scan") : name.contains(c)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Vanilla's scan + shuffle of both tables alone (repartitioned by the key as a shuffled join would, counted
   * as internal rows so no column is pruned and nothing is converted): the part of a shuffled join's time a
   * row-based shuffle keeps whatever the join does.
   */
  private static String scanAndShuffle(SparkSession spark, String build, String probe, int reps) {
    spark.conf().set("spark.rowmatch.enabled", "false");
    double[] t = new double[reps + 1];
    for (int r = 0; r <= reps; r++) {
      long t0 = System.nanoTime();
      long n = spark.read().parquet(probe).repartition(new org.apache.spark.sql.Column("k")).queryExecution()
          .toRdd().count();
      n += spark.read().parquet(build).repartition(new org.apache.spark.sql.Column("k")).queryExecution()
          .toRdd().count();
      t[r] = (System.nanoTime() - t0) / 1e9;
      System.out.printf(Locale.ROOT, "scan + shuffle of both tables rep %d: %.2f s (%d rows)%n", r - 1, t[r], n);
    }
    double m = median(Arrays.copyOfRange(t, 1, t.length));
    return String.format(Locale.ROOT, "| scan + shuffle of both tables by k, no join (vanilla) | %.2f | | |", m);
  }

  private static double median(double[] xs) {
    double[] s = xs.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }
}
