package io.rowmatch.bench.tpch;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The runner's command-line options (see {@link #USAGE}). */
public record BenchmarkOptions(double scaleFactor, List<Integer> queries, int reps, List<Engine> engines,
    Path dataDir, Path resultsDir, String childHeap, int shufflePartitions, Path cometJar) {

  public static final String USAGE = String.join("\n",
      "bench/tpch.sh [options]",
      "  --sf N                  TPC-H scale factor (default 1); data is generated once into --data-dir",
      "  --queries LIST          e.g. 1,3,5-7 (default: all 22)",
      "  --reps N                timed runs per query and engine, after one warm-up run (default 3)",
      "  --engines LIST          vanilla,rowmatch,comet (default vanilla,rowmatch)",
      "  --data-dir DIR          where the Parquet tables are cached (default ./tpch-data)",
      "  --results-dir DIR       where a run writes its folder tpch-sf<N>-<time>/ (default ./results)",
      "  --child-heap SIZE       -Xmx of each engine's JVM (default 8g at SF >= 1, else 2g)",
      "  --shuffle-partitions N  spark.sql.shuffle.partitions (default 8)",
      "  --comet-jar FILE        the Comet jar (bench/tpch.sh fetches it when --engines names comet)");

  public static BenchmarkOptions parse(String[] args) {
    double sf = 1;
    List<Integer> queries = range(1, TpchQuery.COUNT);
    int reps = 3;
    List<Engine> engines = List.of(Engine.VANILLA, Engine.ROWMATCH);
    Path dataDir = Path.of("tpch-data");
    Path resultsDir = Path.of("results");
    String childHeap = null;
    int shufflePartitions = 8;
    Path cometJar = null;
    for (int i = 0; i < args.length; i++) {
      String option = args[i];
      if (option.equals("--help") || option.equals("-h")) {
        throw new IllegalArgumentException(USAGE);
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("Option " + option + " needs a value\n" + USAGE);
      }
      String value = args[++i];
      switch (option) {
        case "--sf" -> sf = positive(Double.parseDouble(value), option);
        case "--queries" -> queries = queryList(value);
        case "--reps" -> reps = (int) positive(Integer.parseInt(value), option);
        case "--engines" -> engines = engineList(value);
        case "--data-dir" -> dataDir = Path.of(value);
        case "--results-dir" -> resultsDir = Path.of(value);
        case "--child-heap" -> childHeap = value;
        case "--shuffle-partitions" -> shufflePartitions = (int) positive(Integer.parseInt(value), option);
        case "--comet-jar" -> cometJar = Path.of(value);
        default -> throw new IllegalArgumentException("Unknown option " + option + "\n" + USAGE);
      }
    }
    if (childHeap == null) {
      childHeap = sf >= 1 ? "8g" : "2g";
    }
    return new BenchmarkOptions(sf, queries, reps, engines, dataDir, resultsDir, childHeap, shufflePartitions,
        cometJar);
  }

  static List<Integer> queryList(String text) {
    if (text.equalsIgnoreCase("all")) {
      return range(1, TpchQuery.COUNT);
    }
    Set<Integer> queries = new LinkedHashSet<>();
    for (String part : text.split(",")) {
      String item = part.strip().toLowerCase().replace("q", "");
      int dash = item.indexOf('-');
      int from = Integer.parseInt(dash < 0 ? item : item.substring(0, dash));
      int to = dash < 0 ? from : Integer.parseInt(item.substring(dash + 1));
      for (int q = from; q <= to; q++) {
        if (q < 1 || q > TpchQuery.COUNT) {
          throw new IllegalArgumentException("TPC-H has queries 1 to 22; --queries asked for " + q);
        }
        queries.add(q);
      }
    }
    return List.copyOf(queries);
  }

  static List<Engine> engineList(String text) {
    Set<Engine> engines = new LinkedHashSet<>();
    for (String id : text.split(",")) {
      engines.add(Engine.parse(id));
    }
    return List.copyOf(engines);
  }

  private static List<Integer> range(int from, int to) {
    List<Integer> values = new ArrayList<>();
    for (int i = from; i <= to; i++) {
      values.add(i);
    }
    return List.copyOf(values);
  }

  private static double positive(double value, String option) {
    if (!(value > 0)) {
      throw new IllegalArgumentException(option + " must be positive, got " + value);
    }
    return value;
  }
}
