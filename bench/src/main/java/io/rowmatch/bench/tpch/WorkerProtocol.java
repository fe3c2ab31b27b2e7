package io.rowmatch.bench.tpch;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/** The line protocol between the benchmark parent and its per-engine worker JVMs. */
public final class WorkerProtocol {
  public static final String READY = "@@READY";
  public static final String FAILED = "@@FAILED";
  public static final String RESULT = "@@RESULT";
  private static final int FIELDS = 10;

  private WorkerProtocol() {}

  /**
   * A worker's report of one run. {@code error} is empty when the query ran; {@code consistency} says how
   * the answer compares with the same engine's first run of the query ("first", "same", or the difference).
   */
  public record Reply(String query, String label, double millis, int rows, int operatorCount, String operators,
      String fallbackReasons, String consistency, String error) {

    static Reply error(String query, String label, String error) {
      return new Reply(query, label, Double.NaN, 0, 0, "-", "", "", error);
    }

    public boolean failed() {
      return !error.isEmpty();
    }

    public String toLine() {
      return String.join("\t", RESULT, clean(query), clean(label),
          String.format(Locale.ROOT, "%.3f", millis), Integer.toString(rows), Integer.toString(operatorCount),
          clean(operators), clean(fallbackReasons), clean(consistency), clean(error));
    }

    public static Reply parse(String line) {
      String[] f = line.split("\t", -1);
      if (f.length != FIELDS || !f[0].equals(RESULT)) {
        throw new IllegalArgumentException("Not a worker reply: " + line);
      }
      return new Reply(f[1], f[2], Double.parseDouble(f[3]), Integer.parseInt(f[4]),
          Integer.parseInt(f[5]), f[6], f[7], f[8], f[9]);
    }
  }

  /** One line, no tabs: a field of a reply. */
  static String clean(String text) {
    return text.replace('\t', ' ').replace('\r', ' ').replace('\n', ' ');
  }

  /** Prefix of the worker options that carry --conf settings ("--conf.spark.x value"). */
  static final String CONF_PREFIX = "conf.";

  /** "--key value" pairs. */
  static Map<String, String> options(String[] args) {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("Expected --option value, got " + args[i]);
      }
      options.put(args[i].substring(2), args[++i]);
    }
    return options;
  }
}
