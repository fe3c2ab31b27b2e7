package io.rowmatch.bench.tpch;

import java.util.Map;

/** All engines' results for one TPC-H query. */
public record QueryResult(int query, Map<Engine, EngineResult> byEngine) {
  public boolean allAnswersOk() {
    return byEngine.values().stream().allMatch(EngineResult::answerOk);
  }
}
