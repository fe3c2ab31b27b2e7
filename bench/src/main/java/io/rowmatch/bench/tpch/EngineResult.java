package io.rowmatch.bench.tpch;

import java.util.Arrays;
import java.util.List;

/**
 * One engine's runs of one query: the warm-up, the timed runs, and the verdict on its answer
 * ("ok ...", "WRONG: ...", "ERROR: ...", "unchecked ...").
 */
public record EngineResult(Engine engine, WorkerProtocol.Reply warmup, List<WorkerProtocol.Reply> timed,
    String check) {

  public boolean answerOk() {
    return check.startsWith("ok") || check.startsWith("anchor");
  }

  /** Median of the timed runs in ms; NaN if any failed (a failed run has no time). */
  public double medianMillis() {
    double[] times = timed.stream().mapToDouble(WorkerProtocol.Reply::millis).toArray();
    if (times.length == 0 || Arrays.stream(times).anyMatch(Double::isNaN)) {
      return Double.NaN;
    }
    Arrays.sort(times);
    int mid = times.length / 2;
    return times.length % 2 == 1 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  }
}
