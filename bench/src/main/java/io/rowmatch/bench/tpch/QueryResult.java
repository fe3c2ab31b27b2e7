package io.rowmatch.bench.tpch;

import java.util.Map;

/** All engines' results for one query ("q5", "q14a"). */
public record QueryResult(String query, Map<Engine, EngineResult> byEngine) {
  public boolean allAnswersOk() {
    return byEngine.values().stream().allMatch(EngineResult::answerOk);
  }
}
