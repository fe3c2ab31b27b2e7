package io.rowmatch.bench.spark;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Plugin on vs off for issue 5's three queries on generated Parquet data (local[2]): dropDuplicates on one
 * bigint key of a wide table (Spark plans a sort aggregate), distinct on two string columns, and a group-by
 * of two string keys with sum/avg/count. Each query runs warm, engines interleaved, `reps` times; medians
 * and the ratio vanilla/rowmatch are printed as a Markdown table. Every run's result row count is compared
 * between engines, and the plan of the Rowmatch run must contain RowmatchHashAggregate.
 *
 * <p>Usage: AggregationBench [rows=10000000] [reps=5] [dataDir=target/agg-bench-data] [only=all]
 * ({@code only}: run just the queries whose name contains it, e.g. {@code dropDuplicates}).
 */
public final class AggregationBench {
  private AggregationBench() {}

  public static void main(String[] args) {
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
    int reps = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    File dataDir = new File(args.length > 2 ? args[2] : "target/agg-bench-data");
    String only = args.length > 3 ? args[3] : "";

    SparkSession spark = SparkSession.builder()
        .master("local[2]")
        .appName("rowmatch-aggregation-bench")
        .config("spark.sql.extensions", "io.rowmatch.spark.RowmatchExtensions")
        .config("spark.rowmatch.placement.enabled", "false") // measure the operators themselves
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "4g")
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    try {
      File wide = new File(dataDir, "wide-" + rows);
      if (!new File(wide, "_SUCCESS").exists()) {
        System.out.println("generating " + rows + " rows into " + wide);
        long t0 = System.nanoTime();
        spark.range(0, rows, 1, 8).selectExpr(
                "id % " + Math.max(1, rows / 2) + " * 7919 as key",
                "concat('s', cast(id % 1000 as string)) as s1",
                "concat('t', cast((id * 31) % 997 as string)) as s2",
                "concat('g', cast(id % 300 as string)) as g1",
                "concat('h', cast((id * 17) % 331 as string)) as g2",
                "cast(id % 100000 as double) / 7 as x",
                "id % 1000003 as y",
                "cast(id % 5 as int) as z",
                "concat('payload-', cast(id as string)) as p")
            .write().mode("overwrite").parquet(wide.getAbsolutePath());
        System.out.printf(Locale.ROOT, "generated in %.1f s%n", (System.nanoTime() - t0) / 1e9);
      }
      String path = wide.getAbsolutePath();
      Map<String, Function<SparkSession, Dataset<Row>>> queries = new LinkedHashMap<>();
      queries.put("dropDuplicates(key) on a wide table",
          s -> s.read().parquet(path).dropDuplicates("key"));
      queries.put("distinct(s1, s2)",
          s -> s.read().parquet(path).select("s1", "s2").distinct());
      queries.put("group by (g1, g2): sum, avg, count",
          s -> s.read().parquet(path).groupBy("g1", "g2")
              .agg(org.apache.spark.sql.functions.sum("y"), org.apache.spark.sql.functions.avg("x"),
                  org.apache.spark.sql.functions.count("*")));

      List<String> lines = new ArrayList<>();
      lines.add("| query (" + rows + " rows, local[2]) | vanilla median s | rowmatch median s | vanilla / rowmatch"
          + " | vanilla cpu s | rowmatch cpu s | cpu vanilla / rowmatch |");
      lines.add("|---|---|---|---|---|---|---|");
      for (Map.Entry<String, Function<SparkSession, Dataset<Row>>> q : queries.entrySet()) {
        if (!q.getKey().contains(only)) {
          continue;
        }
        double[] vanilla = new double[reps];
        double[] ours = new double[reps];
        double[] vanillaCpu = new double[reps];
        double[] oursCpu = new double[reps];
        if (!ROWMATCH_ONLY) {
          run(spark, q.getValue(), false, new double[1]); // warm-up, both engines
        }
        run(spark, q.getValue(), true, new double[1]);
        for (int r = 0; r < reps; r++) {
          double[] cpu = new double[1];
          vanilla[r] = ROWMATCH_ONLY ? Double.NaN : run(spark, q.getValue(), false, cpu);
          vanillaCpu[r] = ROWMATCH_ONLY ? Double.NaN : cpu[0];
          ours[r] = run(spark, q.getValue(), true, cpu);
          oursCpu[r] = cpu[0];
          System.out.printf(Locale.ROOT,
              "%s rep %d: vanilla %.2f s (cpu %.2f s), rowmatch %.2f s (cpu %.2f s, partial skipped %d rows)%n",
              q.getKey(), r, vanilla[r], vanillaCpu[r], ours[r], oursCpu[r], lastSkippedRows);
        }
        double mv = median(vanilla);
        double mo = median(ours);
        double cv = median(vanillaCpu);
        double co = median(oursCpu);
        lines.add(String.format(Locale.ROOT, "| %s | %.2f | %.2f | %.2fx | %.2f | %.2f | %.2fx |", q.getKey(), mv, mo,
            mv / mo, cv, co, cv / co));
      }
      System.out.println();
      lines.forEach(System.out::println);
    } finally {
      spark.stop();
    }
  }

  /** -Drowmatch.bench.rowmatchOnly=true: only the Rowmatch runs (for profiling; no ratios, no count check). */
  private static final boolean ROWMATCH_ONLY = Boolean.getBoolean("rowmatch.bench.rowmatchOnly");

  private static long lastCount = -1;

  /**
   * CPU time of this JVM (all threads, GC and JIT included): on a machine shared with other jobs it varies far
   * less than wall time, which waits for the cores the others take.
   */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /**
   * Runs the query to completion (count of the result), returns seconds and puts the process CPU seconds
   * into cpuSeconds[0]; checks the plan and the count.
   */
  private static double run(SparkSession spark, Function<SparkSession, Dataset<Row>> query, boolean rowmatch,
      double[] cpuSeconds) {
    spark.conf().set("spark.rowmatch.enabled", Boolean.toString(rowmatch));
    Dataset<Row> df = query.apply(spark);
    long c0 = processCpuNanos();
    long t0 = System.nanoTime();
    long count = df.javaRDD().count();
    double seconds = (System.nanoTime() - t0) / 1e9;
    cpuSeconds[0] = (processCpuNanos() - c0) / 1e9;
    String plan = df.queryExecution().executedPlan().toString();
    boolean replaced = plan.contains("RowmatchHashAggregate") || finalPlan(df).contains("RowmatchHashAggregate");
    if (rowmatch && !replaced) {
      throw new IllegalStateException("Rowmatch did not replace the aggregate:\n" + finalPlan(df));
    }
    if (rowmatch) {
      lastSkippedRows = skippedRows(rddPlan(df));
    }
    if (!rowmatch) {
      lastCount = count;
    } else if (lastCount >= 0 && count != lastCount) {
      throw new IllegalStateException("row counts differ: vanilla " + lastCount + ", rowmatch " + count);
    }
    return seconds;
  }

  private static long lastSkippedRows;

  /**
   * The plan that ran: javaRDD() executes the Dataset's separate "rddQueryExecution" (a deserializing plan
   * over the same query), not df.queryExecution(), so its metrics are read there (a private lazy val: reflection).
   */
  private static org.apache.spark.sql.execution.SparkPlan rddPlan(Dataset<Row> df) {
    try {
      java.lang.reflect.Method m = df.getClass().getDeclaredMethod("rddQueryExecution");
      m.setAccessible(true);
      Object qe = m.invoke(df);
      return ((org.apache.spark.sql.execution.QueryExecution) qe).executedPlan();
    } catch (ReflectiveOperationException e) {
      return df.queryExecution().executedPlan();
    }
  }

  /** The rows Rowmatch partial aggregates passed through unaggregated (their "partialSkippedRows" metric). */
  private static long skippedRows(org.apache.spark.sql.execution.SparkPlan p) {
    if (p instanceof org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec a) {
      return skippedRows(a.executedPlan());
    }
    if (p instanceof org.apache.spark.sql.execution.adaptive.QueryStageExec q) {
      return skippedRows(q.plan());
    }
    long n = 0;
    if (p.nodeName().equals("RowmatchHashAggregate")) {
      n += p.metrics().get("partialSkippedRows").get().value();
    }
    for (org.apache.spark.sql.execution.SparkPlan c : scala.jdk.javaapi.CollectionConverters.asJava(p.children())) {
      n += skippedRows(c);
    }
    return n;
  }

  private static String finalPlan(Dataset<Row> df) {
    return df.queryExecution().executedPlan().treeString();
  }

  private static double median(double[] xs) {
    double[] s = xs.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }
}
