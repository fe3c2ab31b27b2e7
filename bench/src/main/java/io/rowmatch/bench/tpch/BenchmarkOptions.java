package io.rowmatch.bench.tpch;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The runner's command-line options (see {@link #USAGE}). */
public record BenchmarkOptions(Workload suite, double scaleFactor, List<String> queries, int reps,
    List<Engine> engines, Path dataDir, Path resultsDir, String childHeap, int shufflePartitions, Path cometJar,
    Map<String, String> confs) {

  public static final String USAGE = String.join("\n",
      "bench/tpch.sh [options]       (bench/tpcds.sh [options] is bench/tpch.sh --suite tpcds [options])",
      "  --suite tpch|tpcds      the benchmark (default tpch): TPC-H's 22 queries or TPC-DS's 103",
      "  --sf N                  scale factor (default 1); data is generated once into --data-dir",
      "  --queries LIST          e.g. 1,3,5-7 or 14a (a TPC-DS number stands for its a/b variants; default: all)",
      "  --reps N                timed runs per query and engine, after one warm-up run (default 3)",
      "  --engines LIST          vanilla,rowmatch,comet (default vanilla,rowmatch)",
      "  --data-dir DIR          where the Parquet tables are cached (default ./tpch-data or ./tpcds-data)",
      "  --results-dir DIR       where a run writes its folder <suite>-sf<N>-<time>/ (default ./results)",
      "  --child-heap SIZE       -Xmx of each engine's JVM (default 8g at SF >= 1, else 2g)",
      "  --shuffle-partitions N  spark.sql.shuffle.partitions (default 8)",
      "  --conf KEY=VALUE        a Spark setting for every engine's session (repeatable; applied after the",
      "                          runner's and the engine's own settings, so it overrides them)",
      "  --comet-jar FILE        the Comet jar (bench/tpch.sh fetches it when --engines names comet)");

  public static BenchmarkOptions parse(String[] args) {
    Workload suite = TpchWorkload.INSTANCE;
    double sf = 1;
    String queryText = "all";
    int reps = 3;
    List<Engine> engines = List.of(Engine.VANILLA, Engine.ROWMATCH);
    Path dataDir = null;
    Path resultsDir = Path.of("results");
    String childHeap = null;
    int shufflePartitions = 8;
    Path cometJar = null;
    Map<String, String> confs = new LinkedHashMap<>();
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
        case "--suite" -> suite = Workload.of(value);
        case "--sf" -> sf = positive(Double.parseDouble(value), option);
        case "--queries" -> queryText = value;
        case "--reps" -> reps = (int) positive(Integer.parseInt(value), option);
        case "--engines" -> engines = engineList(value);
        case "--data-dir" -> dataDir = Path.of(value);
        case "--results-dir" -> resultsDir = Path.of(value);
        case "--child-heap" -> childHeap = value;
        case "--shuffle-partitions" -> shufflePartitions = (int) positive(Integer.parseInt(value), option);
        case "--comet-jar" -> cometJar = Path.of(value);
        case "--conf" -> {
          int eq = value.indexOf('=');
          if (eq <= 0) {
            throw new IllegalArgumentException("--conf needs KEY=VALUE, got '" + value + "'");
          }
          confs.put(value.substring(0, eq).strip(), value.substring(eq + 1).strip());
        }
        default -> throw new IllegalArgumentException("Unknown option " + option + "\n" + USAGE);
      }
    }
    if (childHeap == null) {
      childHeap = sf >= 1 ? "8g" : "2g";
    }
    if (dataDir == null) {
      dataDir = suite.defaultDataDir();
    }
    return new BenchmarkOptions(suite, sf, suite.select(queryText), reps, engines, dataDir, resultsDir, childHeap,
        shufflePartitions, cometJar, Collections.unmodifiableMap(confs));
  }

  static List<Engine> engineList(String text) {
    Set<Engine> engines = new LinkedHashSet<>();
    for (String id : text.split(",")) {
      engines.add(Engine.parse(id));
    }
    return List.copyOf(engines);
  }

  private static double positive(double value, String option) {
    if (!(value > 0)) {
      throw new IllegalArgumentException(option + " must be positive, got " + value);
    }
    return value;
  }
}
