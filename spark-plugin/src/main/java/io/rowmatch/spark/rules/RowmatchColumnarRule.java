package io.rowmatch.spark.rules;

import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.ColumnarRule;
import org.apache.spark.sql.execution.SparkPlan;

/** Replace operators before Spark inserts its row/columnar transitions; fix the transitions after. */
public final class RowmatchColumnarRule extends ColumnarRule {
  private final ReplaceOperators replace = new ReplaceOperators(true);
  private final InsertArrowTransitions transitions = new InsertArrowTransitions();

  @Override
  public Rule<SparkPlan> preColumnarTransitions() {
    return replace;
  }

  @Override
  public Rule<SparkPlan> postColumnarTransitions() {
    return transitions;
  }
}
