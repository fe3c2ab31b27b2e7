package io.rowmatch.bench.core;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A/B timing of the comparator cases in ONE JVM, alternating them in short slices, so that the load of a
 * shared machine falls on every case alike (JMH runs its benchmarks one after the other, minutes apart).
 * Same data and pairs as {@link ComparatorBench}. Each slice is timed in thread CPU time (time the scheduler
 * gives to other processes is not counted). Prints the median ns per pair of each case and the medians of
 * the per-round ratios (both terms of a ratio measured in the same round).
 *
 * <p>Besides the three cases of {@link ComparatorBench}, {@code equalMany first N, repeated} calls
 * {@code equalMany} on the first N pairs only, 4096/N times per slice: the same work on a smaller set of
 * cache lines, which shows how much of the 1M-row cost is the pairs' footprint outgrowing the L2 cache.
 *
 * <p>Usage: {@code java <rowmatch-jvm-flags> -cp ... io.rowmatch.bench.core.ComparatorInterleaved [rows]
 * [rounds] [fixed|sweep]} (the probe pattern, see {@link ComparatorBench#probe}; the repeated cases run
 * with {@code fixed} only).
 */
public final class ComparatorInterleaved {
  private ComparatorInterleaved() {}

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final int SLICE = 40;

  public static void main(String[] args) {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
    ComparatorBench b = new ComparatorBench();
    b.rows = rows;
    b.probe = args.length > 2 ? args[2] : "fixed";
    b.setup();
    try {
      int pairs = ComparatorBench.PAIRS;
      long[] sink = new long[1];
      Map<String, Runnable> cases = new LinkedHashMap<>();
      cases.put("closures", () -> {
        int n = 0;
        b.nextBatch();
        for (int k = 0; k < pairs; k++) {
          n += b.closures.equal(b.leftIds[k], b.rightIds[k]) ? 1 : 0;
        }
        sink[0] += n;
      });
      cases.put("equal", () -> {
        int n = 0;
        b.nextBatch();
        for (int k = 0; k < pairs; k++) {
          n += b.rowmatch.equal(b.leftIds[k], b.rightIds[k]) ? 1 : 0;
        }
        sink[0] += n;
      });
      cases.put("equalMany", () -> {
        b.nextBatch();
        b.rowmatch.equalMany(b.leftIds, b.rightIds, pairs, b.out);
        sink[0] += b.out[7] ? 1 : 0;
      });
      for (int n : b.probe.equals("fixed") ? new int[] {1024, 2048} : new int[0]) {
        int[] li = Arrays.copyOf(b.leftIds, n);
        int[] ri = Arrays.copyOf(b.rightIds, n);
        cases.put("equalMany first " + n + ", repeated", () -> {
          for (int off = 0; off < pairs; off += n) {
            b.rowmatch.equalMany(li, ri, n, b.out);
          }
          sink[0] += b.out[7] ? 1 : 0;
        });
      }
      run(cases, rounds, rows);
      System.out.println("(checksum " + sink[0] + ")");
    } finally {
      b.tearDown();
    }
  }

  static void run(Map<String, Runnable> cases, int rounds, int rows) {
    Map<String, List<Double>> times = new LinkedHashMap<>();
    cases.keySet().forEach(k -> times.put(k, new ArrayList<>()));
    for (int round = -rounds / 3; round < rounds; round++) { // the negative rounds warm up
      for (Map.Entry<String, Runnable> c : cases.entrySet()) {
        long t0 = THREADS.getCurrentThreadCpuTime();
        for (int i = 0; i < SLICE; i++) {
          c.getValue().run();
        }
        double ns = (THREADS.getCurrentThreadCpuTime() - t0) / (double) (SLICE * ComparatorBench.PAIRS);
        if (round >= 0) {
          times.get(c.getKey()).add(ns);
        }
      }
    }
    times.forEach((k, v) -> {
      double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      System.out.printf("rows %d  %-32s median %6.1f ns/pair  (min %.1f, p25 %.1f, p75 %.1f)%n", rows, k,
          a[a.length / 2], a[0], a[a.length / 4], a[a.length * 3 / 4]);
    });
    for (String base : new String[] {"closures", "equal"}) {
      List<Double> bt = times.get(base);
      StringBuilder sb = new StringBuilder(base + " / case, median of per-round ratios:");
      times.forEach((k, v) -> {
        double[] r = new double[v.size()];
        for (int i = 0; i < r.length; i++) {
          r[i] = bt.get(i) / v.get(i);
        }
        Arrays.sort(r);
        sb.append(String.format("%n  %-32s %.2fx", k, r[r.length / 2]));
      });
      System.out.println(sb);
    }
  }
}
