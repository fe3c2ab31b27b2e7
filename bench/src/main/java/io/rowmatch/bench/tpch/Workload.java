package io.rowmatch.bench.tpch;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import org.apache.spark.sql.SparkSession;

/**
 * What the runner needs of a benchmark suite (TPC-H, TPC-DS): its queries, its data set, and how an
 * answer is checked. The runner, its worker JVMs and its report are the same for every suite.
 */
public interface Workload {
  /** "tpch", "tpcds": the --suite value and the prefix of the results folder. */
  String id();

  /** "TPC-H", "TPC-DS". */
  String title();

  /** Every query, in run order. */
  List<String> queryNames();

  /** The query {@code name} as run at {@code scaleFactor}. */
  BenchQuery query(String name, double scaleFactor);

  /** The default --data-dir. */
  Path defaultDataDir();

  /** The marker file a complete data set carries (written last by the generator). */
  String marker();

  /** The data for {@code scaleFactor} under {@code root}, generated first if absent ({@code spark} may be null then). */
  TpchDataset ensureData(SparkSession spark, Path root, double scaleFactor, PrintStream progress);

  /** An external reference answer for this scale factor, when the suite has one. */
  Optional<ResultTable> reference(BenchQuery query, double scaleFactor);

  /** Empty when {@code actual} answers {@code query} as {@code expected} does, else the first difference. */
  Optional<String> compare(BenchQuery query, ResultTable expected, ResultTable actual);

  static Workload of(String id) {
    switch (id.strip().toLowerCase(Locale.ROOT)) {
      case "tpch":
        return TpchWorkload.INSTANCE;
      case "tpcds":
        return TpcdsWorkload.INSTANCE;
      default:
        throw new IllegalArgumentException("Unknown suite '" + id + "': use tpch or tpcds");
    }
  }

  /**
   * Query names from a list such as {@code 1,3,5-7,14a}: a number stands for every query of that number
   * (TPC-DS 14 is q14a and q14b), a name with a letter for itself. Run order is the suite's order.
   */
  default List<String> select(String text) {
    if (text.equalsIgnoreCase("all")) {
      return queryNames();
    }
    java.util.Set<String> wanted = new java.util.HashSet<>();
    for (String part : text.split(",")) {
      String item = part.strip().toLowerCase(Locale.ROOT).replace("q", "");
      int dash = item.indexOf('-');
      if (dash < 0 && !item.isEmpty() && Character.isLetter(item.charAt(item.length() - 1))) {
        if (!queryNames().contains("q" + item)) {
          throw new IllegalArgumentException(title() + " has no query q" + item);
        }
        wanted.add("q" + item);
        continue;
      }
      int from = Integer.parseInt(dash < 0 ? item : item.substring(0, dash));
      int to = dash < 0 ? from : Integer.parseInt(item.substring(dash + 1));
      for (int q = from; q <= to; q++) {
        boolean found = false;
        for (String name : queryNames()) {
          if (name.replaceAll("[a-z]+$", "").equals("q" + q)) {
            wanted.add(name);
            found = true;
          }
        }
        if (!found) {
          throw new IllegalArgumentException(title() + " has no query " + q + " (queries: " + queryNames().get(0)
              + " to " + queryNames().get(queryNames().size() - 1) + "); --queries asked for it");
        }
      }
    }
    return queryNames().stream().filter(wanted::contains).toList();
  }
}
