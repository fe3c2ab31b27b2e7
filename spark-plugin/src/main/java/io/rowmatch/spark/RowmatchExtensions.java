package io.rowmatch.spark;

import org.apache.spark.sql.SparkSessionExtensions;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

import io.rowmatch.spark.rules.ReplaceOperators;
import io.rowmatch.spark.rules.RowmatchColumnarRule;

/**
 * The entry point: {@code spark.sql.extensions=io.rowmatch.spark.RowmatchExtensions}. Registers the
 * columnar rule (replacement before Spark's transitions, Arrow transitions after) and the same
 * replacement as an AQE query-stage preparation rule, so adaptive plans see the decisions too.
 */
public final class RowmatchExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectColumnar(session -> new RowmatchColumnarRule());
    extensions.injectQueryStagePrepRule(session -> new ReplaceOperators());
    return BoxedUnit.UNIT;
  }
}
