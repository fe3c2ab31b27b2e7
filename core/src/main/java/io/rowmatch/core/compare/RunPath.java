package io.rowmatch.core.compare;

/**
 * Which loop compares the valid values of a range: value by value (the scalar path), the whole range
 * as one run (no nulls), or run by run. A run costs a few offset reads and one bulk call, so it pays
 * only when runs are long; short ranges go to the scalar path before the validity is even looked at
 * again, and fragmented ones (few valid values per run) stay there too.
 */
public final class RunPath {
  private RunPath() {}

  public static final int SCALAR = 0;
  public static final int SINGLE_RUN = 1;
  public static final int MULTI_RUN = 2;

  /** Let the cutoff and the fragmentation measure choose. */
  public static final int AUTO = -1;
  /** Runs whenever possible (single or multi), whatever the length or fragmentation: tests, benchmarks. */
  public static final int FORCE_RUNS = -2;

  /** Ranges shorter than this many values take the scalar path, before any look at fragmentation. */
  static final int SHORT_CUTOFF = 64;
  /** Below this many valid values per run on average, the scalar path is kept. */
  static final int MIN_AVERAGE_RUN = 4;

  /** Test hook: when set, each choice is counted below (racy plain counters; tests run one thread). */
  static boolean countPaths;
  static long scalarCount;
  static long singleRunCount;
  static long multiRunCount;

  /**
   * The path for {@code n} values from bit {@code bit} of a validity bitmap (0 = all valid), of which
   * {@code nulls} are null ({@code 0 < n}, {@code nulls < n}). {@code requested} is {@link #AUTO},
   * {@link #FORCE_RUNS} or {@link #SCALAR}.
   */
  static int choose(int requested, long validity, long bit, long limitBytes, long n, long nulls) {
    int path;
    if (requested == SCALAR) {
      path = SCALAR;
    } else if (requested == AUTO && n < SHORT_CUTOFF) {
      path = SCALAR;
    } else if (nulls == 0) {
      path = SINGLE_RUN;
    } else if (requested == FORCE_RUNS) {
      path = MULTI_RUN;
    } else {
      long runs = BitmapRange.countRuns(validity, bit, limitBytes, n);
      path = n - nulls < (long) MIN_AVERAGE_RUN * runs ? SCALAR : MULTI_RUN;
    }
    if (countPaths) {
      count(path);
    }
    return path;
  }

  private static void count(int path) {
    if (path == SCALAR) {
      scalarCount++;
    } else if (path == SINGLE_RUN) {
      singleRunCount++;
    } else {
      multiRunCount++;
    }
  }

  static void resetCounts() {
    scalarCount = 0;
    singleRunCount = 0;
    multiRunCount = 0;
  }
}
