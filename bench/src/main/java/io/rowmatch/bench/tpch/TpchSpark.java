package io.rowmatch.bench.tpch;

import java.util.Map;

import org.apache.spark.sql.SparkSession;

/** The embedded Spark session a TPC-H run uses: local, no UI, the engine's settings on top. */
public final class TpchSpark {
  private TpchSpark() {}

  public static SparkSession session(Engine engine, String master, int shufflePartitions, Map<String, String> extra) {
    engine.checkAvailable();
    SparkSession.Builder builder = SparkSession.builder()
        .appName("rowmatch-tpch-" + engine.id())
        .master(master)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", Integer.toString(shufflePartitions))
        // Results and plans are read by the driver only; keep Spark's own console progress bar out of the output.
        .config("spark.ui.showConsoleProgress", "false");
    engine.settings().forEach(builder::config);
    extra.forEach(builder::config);
    return builder.getOrCreate();
  }
}
